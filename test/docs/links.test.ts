import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fromRoot, projectRoot } from '../../src/paths.js';

// The README is the newcomer's first hour and docs/ holds the depth: a link that leads nowhere, or
// a README that has grown back into a manual, is what they would notice.

const README_MAX_LINES = 250;

function markdownUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const documents = () => [fromRoot('README.md'), fromRoot('bench', 'README.md'), ...markdownUnder(fromRoot('docs'))];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Targets of inline links `[text](target)`, without a title. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(path: string): Set<string> {
  const headings = [...readFileSync(path, 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)];
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of headings) {
    const base = anchorOf(heading!);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

describe('the README and docs/', () => {
  it(`the README fits in ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(fromRoot('README.md'), 'utf8').split('\n').length;
    expect(lines, 'README.md lines').to.be.at.most(README_MAX_LINES);
  });

  it('every relative link leads to a file that exists, and every anchor to a heading in it', () => {
    const broken: string[] = [];
    for (const document of documents()) {
      for (const target of linkTargets(readFileSync(document, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const file = pathPart === '' ? document : resolve(dirname(document), decodeURIComponent(pathPart));
        const where = `${relative(projectRoot, document)}: ${target}`;
        if (!existsSync(file)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken, 'broken links').to.deep.equal([]);
  });
});
