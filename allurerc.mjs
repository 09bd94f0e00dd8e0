// Allure 3 report settings: `npx allure@3 generate reports/allure-results` reads this file.
// Tests are grouped by protocol (epic), functional block (feature) and use case (story).
// The categories are the ones the harness writes as categories.json into every results directory
// (harness/report.py CATEGORIES, which Allure 2 reads): Allure 3 takes them from here. Keep both alike.
export default {
  name: "EV-charging conformance",
  output: "./reports/allure-report",
  categories: [
    { name: "Passed with findings (a SHOULD the SUT did not meet)", matchedStatuses: ["passed"],
      messageRegex: "Passed with \\d+ findings?:[\\s\\S]*" },
    { name: "Failed: the SUT broke a MUST rule", matchedStatuses: ["failed"] },
    { name: "Broken: the harness could not judge", matchedStatuses: ["broken"] },
    { name: "Not applicable to this SUT", matchedStatuses: ["skipped"] },
  ],
  plugins: {
    awesome: {
      options: {
        reportName: "EV-charging conformance",
        groupBy: ["epic", "feature", "story"],
      },
    },
  },
};
