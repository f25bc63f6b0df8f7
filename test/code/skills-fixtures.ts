import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

// Skill folders as people write them, for test/code/skills*.test.ts and test/cli/code-skills.test.ts: a project
// (`root`) and a home holding `~/.claude` (`claude`) and `~/.minagent` (`minagent`), in one temporary folder.

export type SkillHome = { base: string; root: string; claude: string; minagent: string; close: () => Promise<void> };

export async function createSkillHome(): Promise<SkillHome> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "minagent-skills-")));
  const home = { base, root: join(base, "project"), claude: join(base, "home", ".claude"), minagent: join(base, "home", ".minagent") };
  for (const folder of [home.root, home.claude, home.minagent]) await mkdir(folder, { recursive: true });
  return { ...home, close: () => rm(base, { recursive: true, force: true }) };
}

/** Writes `files` (paths relative to `folder`) and returns the folder. */
export async function writeFiles(folder: string, files: Record<string, string>): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), text);
  }
  return folder;
}

/** A PDF-form skill with a reference page and a script, as a team keeps one in its repository. */
export const pdfFormsSkill = {
  "SKILL.md": `---
name: pdf-forms
description: Fill in PDF forms (AcroForm fields) from JSON data and check the result. Use when the user asks to fill, complete or inspect a PDF form.
allowed-tools: Read Bash(python3 *)
license: MIT
---

# Filling PDF forms

1. List the form's fields: \`python3 \${CLAUDE_SKILL_DIR}/scripts/fill.py --list form.pdf\`.
2. Write the values to a JSON file whose keys are the field names.
3. Fill it: \`python3 \${CLAUDE_SKILL_DIR}/scripts/fill.py form.pdf values.json out.pdf\`.

Check boxes take "Yes" or "Off". For dates and signatures, see reference.md.
`,
  "reference.md": `# PDF form fields

| type | value |
| --- | --- |
| text | any string; multi-line fields keep \\n |
| checkbox | "Yes" or "Off" (some forms use "On") |
| date | the format the field's script expects, usually DD/MM/YYYY |

Signature fields cannot be filled: leave them for the person.
`,
  "scripts/fill.py": `#!/usr/bin/env python3
"""Fill a PDF form's fields from a JSON file, or list them with --list."""
import json
import sys

from pypdf import PdfReader, PdfWriter


def main(argv):
    if argv[1] == "--list":
        for name, field in PdfReader(argv[2]).get_fields().items():
            print(name, field.get("/FT"))
        return 0
    reader = PdfReader(argv[1])
    writer = PdfWriter()
    writer.append(reader)
    with open(argv[2]) as values:
        writer.update_page_form_field_values(None, json.load(values), auto_regenerate=False)
    with open(argv[3], "wb") as out:
        writer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
`,
};

/** The user's own commit style, in ~/.claude/skills. */
export const userCommitMessagesSkill = {
  "SKILL.md": `---
name: commit-messages
description: Write commit messages in the user's style. Use when committing or when asked for a commit message.
---

Write the subject in the imperative, at most 60 characters, without a trailing period.
Leave a blank line, then say why the change was made, wrapped at 72 columns.
Sign off with: Reviewed-by: nobody yet
`,
};

/** The project's commit style, which the user's skill of the same name replaces. */
export const projectCommitMessagesSkill = {
  "SKILL.md": `---
name: commit-messages
description: Conventional Commits for this repository (feat:, fix:, chore:).
---

Start the subject with a Conventional Commits type: feat, fix, docs, chore, refactor or test.
`,
};

/** A deployment only a person should start. */
export const deploySkill = {
  "SKILL.md": `---
name: deploy
description: Deploy the site to production with the release script.
disable-model-invocation: true
---

Run ./scripts/release.sh production and watch the health check.
`,
};

/** A skill whose author forgot the description and wrote no instructions yet. */
export const emptySkill = {
  "SKILL.md": `---
name: release-notes
---
`,
};

/** Invalid YAML: a description holding ": " without quotes. */
export const badYamlSkill = {
  "SKILL.md": `---
name: changelog
description: Update CHANGELOG.md. Use it when: a release is being prepared
---

Add the entries under "Unreleased".
`,
};
