/**
 * The entries of spec/decisions.md ("## D-NAME: title", then bold-labelled lines Gap / Decision /
 * Reason / Requirements / Refines) and the requirement IDs each one creates or refines.
 */
import { readFileSync } from 'node:fs';
import { packagePath } from './package-files.ts';

export interface DecisionEntry {
  /** `D-AUTH`. */
  name: string;
  title: string;
  /** The entry's whole Markdown text, heading included. */
  text: string;
  /** Each bold-labelled line (`Gap`, `Decision`, `Reason`, `Requirements`, `Refines`), whitespace squashed. */
  lines: Map<string, string>;
  /** The whole Decision block as Markdown (tables and lists of an "as follows" decision included). */
  decision: string;
  /** Requirement IDs of the `Requirements:` line: the rules the entry creates. */
  creates: string[];
  /** Requirement IDs of the `Refines:` line: the document's rules the entry makes precise. */
  refines: string[];
}

/** Absolute path of spec/decisions.md. */
export const DECISIONS_PATH = packagePath('spec', 'decisions.md');

const ID = /[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+/g;

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Requirement-ID-shaped tokens of `text`, decision names (`D-…`) left out. */
export function requirementIdsIn(text: string): string[] {
  return [...text.matchAll(ID)].map((m) => m[0]).filter((t) => !t.startsWith('D-'));
}

/** The Markdown from `- **Decision:**` up to the next bold-labelled line, continuation indent removed. */
function decisionBlock(text: string): string {
  const m = /^- \*\*Decision:\*\*[ \t]*([\s\S]*?)(?=^- \*\*[A-Za-z]+:\*\*|(?![\s\S]))/m.exec(text);
  const block = (m?.[1] ?? '').replace(/^as follows\.\s*/, '');
  return block.split('\n').map((line) => line.replace(/^ {2}/, '')).join('\n').trim();
}

/** Splits decisions.md into its entries. */
export function parseDecisions(markdown: string): DecisionEntry[] {
  return markdown
    .split(/^(?=## D-)/m)
    .slice(1)
    .map((text) => {
      const heading = /^## (D-[A-Z0-9-]+):\s*([^\n]*)/.exec(text);
      const lines = new Map<string, string>();
      for (const m of text.matchAll(/^- \*\*([A-Za-z]+):\*\*([^\n]*(?:\n {2}[^\n]*)*)/gm)) {
        lines.set(m[1] ?? '', squash(m[2] ?? ''));
      }
      return {
        name: heading?.[1] ?? '',
        title: (heading?.[2] ?? '').trim(),
        text,
        lines,
        decision: decisionBlock(text),
        creates: requirementIdsIn(lines.get('Requirements') ?? ''),
        refines: requirementIdsIn(lines.get('Refines') ?? ''),
      };
    });
}

let cached: DecisionEntry[] | undefined;

/** The entries of the package's spec/decisions.md, read once. */
export function loadDecisions(): DecisionEntry[] {
  cached ??= parseDecisions(readFileSync(DECISIONS_PATH, 'utf8'));
  return cached;
}
