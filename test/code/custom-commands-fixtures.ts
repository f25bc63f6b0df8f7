import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

// Command files as a team and a person using Claude Code would write them, shared by the custom command tests.

/** A review of uncommitted changes: `$ARGUMENTS`, a shell line for context, and the one git command it may run. */
export const reviewCommand = `---
description: Review a file's uncommitted changes before they are committed
argument-hint: [file]
allowed-tools: Bash(git diff:*)
---
## Context

- What changed: !\`git diff --stat\`

## Your task

Review the changes to $ARGUMENTS for bugs, unclear names and missing tests.
Quote the lines you mean and suggest the smallest fix.
`;

/** A namespaced command (`frontend/component.md`) with positional arguments, counted from 0 as Claude Code does. */
export const componentCommand = `---
description: Scaffold a React component and its test
argument-hint: <Name> <kind>
---
Create a React $1 component named $0 in src/components/$0.tsx, with a test in src/components/$0.test.tsx.
Keep to the patterns of the existing components.
`;

/** A command that includes a file of the project (and names no argument). */
export const explainCommand = `---
description: Explain what a module does
---
Explain what @src/a.ts does and who calls it, in a few sentences.
`;

/** Front matter that is not YAML: an unquoted value holding ": ". */
export const brokenDeployCommand = `---
description: Deploy to staging: runs the release script
allowed-tools: Bash(./scripts/release.sh:*)
---
Run ./scripts/release.sh staging and report what it printed.
`;

/** The user's own command, in ~/.claude/commands/. */
export const standupCommand = `---
description: Draft my stand-up notes from yesterday's commits
allowed-tools: Bash(git log:*)
---
Yesterday's commits:
!\`git log --since=yesterday --oneline\`

Draft three short bullet points for my stand-up from them.
`;

/** A command named like a built-in one of the interactive session. */
export const helpCommand = `---
description: Our team's onboarding help
---
Print the onboarding checklist of docs/onboarding.md.
`;

/** The project's source file the commands talk about. */
export const sourceFile = `export function add(a: number, b: number): number {
  return a + b;
}
`;

/** Writes `files` (paths relative to `root`) with their folders. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** A project with the commands, `src/a.ts` committed to git and then changed, so that `git diff --stat` has a line. */
export async function writeCommandProject(root: string, userClaudeDirectory: string): Promise<void> {
  await writeFiles(root, {
    ".claude/commands/review.md": reviewCommand,
    ".claude/commands/frontend/component.md": componentCommand,
    ".claude/commands/explain.md": explainCommand,
    ".claude/commands/deploy.md": brokenDeployCommand,
    ".claude/commands/help.md": helpCommand,
    "src/a.ts": sourceFile,
  });
  await writeFiles(userClaudeDirectory, { "commands/standup.md": standupCommand });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
  git("init", "-q");
  git("-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "--allow-empty", "-m", "start");
  git("add", "src/a.ts");
  git("-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "add");
  await writeFile(join(root, "src/a.ts"), sourceFile.replace("a + b", "b + a").replace("number {", "number {\n  // Adds."));
}
