/**
 * The commands a README shows: every line of its fenced `sh` / `bash` / `shell` blocks, with
 * backslash continuations joined and trailing `# comments` removed, as a user would paste it.
 * conformance/tests/readme-commands.spec.ts runs each one (or lists why it cannot run here).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface ReadmeCommand {
  /** README path relative to the package root. */
  file: string;
  /** 1-based line of the command's first line. */
  line: number;
  /** The command, whitespace collapsed, without its trailing comment. */
  command: string;
}

const SKIP = new Set(['node_modules', '.git', 'dist', 'test-results', 'conformance-results', 'playwright-report', '.stryker-tmp', 'reports']);

/** Every README.md under `root` (node_modules, build and report folders excluded), sorted. */
export function readmeFiles(root: string, dir: string = root, depth = 0): string[] {
  if (depth > 4) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !SKIP.has(entry.name) && !entry.name.startsWith('.')) found.push(...readmeFiles(root, join(dir, entry.name), depth + 1));
    else if (entry.isFile() && entry.name === 'README.md') found.push(relative(root, join(dir, entry.name)));
  }
  return found.sort();
}

/** `line` without a trailing `# comment` (a `#` outside quotes that follows whitespace). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return line.slice(0, i);
    }
  }
  return line;
}

/** The commands of the shell blocks of one markdown text. */
export function shellCommands(markdown: string, file = ''): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  const lines = markdown.split('\n');
  let inShell = false;
  let inFence = false;
  let pending: { line: number; parts: string[] } | undefined;
  lines.forEach((raw, index) => {
    const fence = /^\s*```(\S*)/.exec(raw);
    if (fence) {
      if (!inFence) {
        inFence = true;
        inShell = ['sh', 'bash', 'shell', 'console'].includes(fence[1] ?? '');
      } else {
        inFence = false;
        inShell = false;
      }
      return;
    }
    if (!inShell) return;
    const text = withoutComment(raw).trim();
    if (text === '' && !pending) return;
    const continued = text.endsWith('\\');
    const part = continued ? text.slice(0, -1).trim() : text;
    pending ??= { line: index + 1, parts: [] };
    pending.parts.push(part);
    if (!continued) {
      commands.push({ file, line: pending.line, command: pending.parts.join(' ').replace(/\s+/g, ' ').trim() });
      pending = undefined;
    }
  });
  return commands;
}

/** Every command of every README under `root`. */
export function readmeCommands(root: string): ReadmeCommand[] {
  return readmeFiles(root).flatMap((file) => shellCommands(readFileSync(join(root, file), 'utf8'), file));
}
