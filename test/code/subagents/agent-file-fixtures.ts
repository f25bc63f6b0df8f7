// Agent files as a Claude Code user keeps them in .claude/agents/, one of each kind minagent must run unchanged.

/** A read-only reviewer on Claude Code's Sonnet, with a colour: the file `/agents` writes. */
export const reviewerFile = `---
name: code-reviewer
description: Reviews the latest change for bugs, missing tests and unclear names. Use it right after code was written or changed.
tools: Read, Grep, Glob
model: sonnet
color: blue
---
You are a senior reviewer. Read the files the change touches, and report:

1. bugs, with the file and line;
2. behaviour that has no test;
3. names that say less than they should.

Be brief. Do not rewrite the code.
`;

/** Guards its own shell: a PreToolUse hook on Bash, a PostToolUse log, a Stop checklist (nested maps, typed `timeout`). */
export function releaseCheckerFile(commands: { guard: string; log: string; checklist: string }): string {
  return `---
name: release-checker
description: Walks through the release checklist (version, changelog, tests) without publishing anything.
tools: Read, Grep, Bash
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: ${commands.guard}
          timeout: 10
  PostToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: ${commands.log}
  Stop:
    - hooks:
        - type: command
          command: ${commands.checklist}
---
You check that a release is ready. Never publish, tag or push: report what is missing instead.
`;
}

/** Triage with the session's GitHub server, and an inline server minagent cannot start. */
export const triagerFile = `---
name: issue-triager
description: Sorts new GitHub issues into bug, feature or question, and finds duplicates.
tools: Read, Grep
mcpServers:
  - github
  - tracker:
      type: http
      url: https://mcp.tracker.example/mcp
---
You triage issues. For each one, say its kind, its likely duplicate if any, and the files it concerns.
`;

/** Everything but the shell and writes: `disallowedTools` after inheriting every tool. */
export const docsWriterFile = `---
name: docs-writer
description: Updates the documentation in docs/ to match a change in behaviour.
disallowedTools: Bash, Write
---
You keep docs/ true to the code. Edit the pages the change concerns; do not create new ones.
`;

/** A planner that must not change anything. */
export const plannerFile = `---
name: planner
description: Works out a step-by-step plan for a change before anyone edits code.
tools: Read, Grep, Glob, Write, Bash
permissionMode: plan
---
You plan changes. Read what you need, then answer with numbered steps naming the files to change.
`;

/** Green in the terminal, and Claude Code keys minagent does not act on. */
export const testRunnerFile = `---
name: test-runner
description: Runs the test suite and explains the failures.
tools: Bash, Read
color: green
maxTurns: 8
skills:
  - testing-conventions
memory: project
---
Run the tests with npm test and explain each failure in one sentence, with the file it is in.
`;

/** Tools minagent does not have, Claude Code's older Task name, and a specifier that is not a name. */
export const researcherFile = `---
name: web-researcher
description: Looks up library documentation on the web and summarises what applies here.
tools: Read, WebFetch, WebSearch, NotebookEdit, Task(code-reviewer), Bash(curl:*)
model: claude-haiku-4-5
---
You research questions about libraries. Quote the documentation you rely on, with its address.
`;
