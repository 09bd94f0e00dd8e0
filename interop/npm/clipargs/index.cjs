// A chain of declarations, then parse(argv): {_: [positional...], <name>: value}. Written from how ocppsim
// calls it (bool/number/string(name, ...flags), parse(argv)); `--flag=value` and `--flag value` both read.
"use strict";

function declare(kinds) {
  const chain = {};
  for (const kind of ["bool", "number", "string"]) {
    chain[kind] = (name, ...flags) => declare([...kinds, { kind, name, flags }]);
  }
  chain.parse = (argv) => {
    const result = { _: [] };
    for (let at = 0; at < argv.length; at++) {
      const [flag, inline] = argv[at].startsWith("--") && argv[at].includes("=")
        ? [argv[at].slice(0, argv[at].indexOf("=")), argv[at].slice(argv[at].indexOf("=") + 1)]
        : [argv[at], undefined];
      const option = kinds.find((each) => each.flags.includes(flag));
      if (!option) {
        result._.push(argv[at]);
      } else if (option.kind === "bool") {
        result[option.name] = true;
      } else {
        const value = inline !== undefined ? inline : argv[++at];
        result[option.name] = option.kind === "number" ? Number(value) : value;
      }
    }
    return result;
  };
  return chain;
}

module.exports = declare([]);
