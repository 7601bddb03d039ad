/** Request bodies that are not well-formed JSON (RFC 8259), for the 400 property. */
import fc from 'fast-check';

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON texts broken by truncation, stray characters, single quotes, trailing commas or bare words. */
export function malformedJson(): fc.Arbitrary<string> {
  const valid = fc.json({ maxDepth: 2 });
  return fc
    .oneof(
      valid.chain((text) => fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut))),
      fc.tuple(valid, fc.constantFrom('}', ']', ',', ':', '{', '"', 'x', '\u0000')).map(([text, junk]) => `${text}${junk}`),
      fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.integer(), { minKeys: 1, maxKeys: 3 }).map((o) => JSON.stringify(o).replace(/"/g, "'")),
      fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.integer(), { minKeys: 1, maxKeys: 3 }).map((o) => `${JSON.stringify(o).slice(0, -1)},}`),
      fc.constantFrom('undefined', 'NaN', 'True', "{a: 1}", '[1,,2]', '{"a" 1}', '01', '+1', '.5'),
    )
    .filter((text) => text.trim() !== '' && !isJson(text));
}
