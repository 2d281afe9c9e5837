// eslint's recommended rules for the front end (python3 dev.py test runs them beside prettier
// and tsc; the versions are pinned in package-lock.json).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    // `const { events: _dropped, ...rest } = data` leaves a key out of a copy
    rules: { "no-unused-vars": ["error", { ignoreRestSiblings: true }] },
  },
  {
    files: ["bobing/web/static/**/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
  },
  {
    files: ["bobing/web/static/sw.js"],
    languageOptions: { globals: globals.serviceworker },
  },
  {
    files: ["tests/js/**/*.mjs", "bobing/bench/*.mjs", "eslint.config.js"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
];
