/**
 * The text as one flat string before a store keeps it. V8 builds a long JSON.stringify result or
 * template string as a tree of concatenated parts; kept as is, a stored record costs about 40 % more
 * heap and several objects instead of one, which the garbage collector copies and marks on every
 * pass (on the memory store the retained records were the largest share of a POST's GC time).
 * Converting it to a number (the flatstr technique) flattens it in place; the number is not used.
 */
export function flat(text: string): string {
  Number(text);
  return text;
}
