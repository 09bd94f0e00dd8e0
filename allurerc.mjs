// Allure 3 report settings: `npx allure@3 generate reports/allure-results` reads this file.
// Tests are grouped by protocol (epic), functional block (feature) and use case (story).
export default {
  name: "EV-charging conformance",
  output: "./reports/allure-report",
  plugins: {
    awesome: {
      options: {
        reportName: "EV-charging conformance",
        groupBy: ["epic", "feature", "story"],
      },
    },
  },
};
