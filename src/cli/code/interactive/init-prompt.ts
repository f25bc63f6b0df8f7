/**
 * What `/init` asks of the model: read the project and write (or improve) AGENTS.md at its root, the memory file
 * every later session starts with. The file is written with Write or Edit like any change, so the person sees the
 * diff and is asked (or not) as the permission mode says.
 */
export const initPrompt = [
  "Write AGENTS.md at the root of this project: the guide a coding agent reads before it works here.",
  "",
  "First look around: the README, the package manifests and lock files, build, test and lint configuration, CI workflows,",
  "the top-level folders and a few central source files, and any instructions already written for agents or people",
  "(AGENTS.md, CLAUDE.md, MINAGENT.md, .cursor/rules, .cursorrules, .github/copilot-instructions.md, CONTRIBUTING.md).",
  "",
  "Then write, in short sections:",
  "- the commands that install, build, lint and test, including how to run a single test;",
  "- the architecture in a few lines: the main parts, where they live and how they fit together — what takes reading several files to see;",
  "- conventions and pitfalls a newcomer would miss (code style the tools do not enforce, generated files, environment needs).",
  "",
  "Keep it short and specific to this project: leave out generic advice, what any file listing shows, and anything you could not confirm.",
  "If AGENTS.md already exists, improve it with Edit — keep what is right, fix what is wrong or stale, add what is missing — instead of rewriting it.",
  "If CLAUDE.md or other agent instructions exist, carry over what still holds.",
].join("\n");
