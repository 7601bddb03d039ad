/**
 * Tables generated into Markdown files (README tables rendered from the project's own data): a row of
 * cells, and the text between two marker comments replaced.
 */

/** A Markdown table row; each cell on one line, a `|` in it escaped so it stays one cell. */
export function tableRow(cells: readonly string[]): string {
  return `| ${cells.map((text) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|')).join(' | ')} |`;
}

/** `text` with what lies between the lines `begin` and `end` replaced by `content`; throws when the markers are missing. */
export function replaceBetween(text: string, begin: string, end: string, content: string): string {
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  if (from < 0 || to < from) throw new Error(`no "${begin}" … "${end}" markers`);
  return `${text.slice(0, from + begin.length)}\n${content}\n${text.slice(to)}`;
}
