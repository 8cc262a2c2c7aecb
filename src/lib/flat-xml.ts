// A reader for small, flat XML answers (one root element whose children are mostly leaves): no DTD, no entity
// definitions, no external references are ever read, so nothing can expand or fetch. Anything outside that shape
// is refused rather than guessed at.

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return PREDEFINED[name] ?? whole;
  }).trim();
}

/**
 * The root element's name and the text of its direct leaf children (`<code>..</code>` -> { code: '..' }); nested
 * elements are skipped, a repeated child keeps its first value. undefined when the document is not well formed as
 * far as this reader looks, or declares a DTD or entities.
 */
export function readFlatXml(xml: string): { root: string; fields: Record<string, string> } | undefined {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return undefined;
  const body = xml.replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, '').replace(/<!--[\s\S]*?-->/g, '');
  const token = /<(\/?)([A-Za-z_][\w.-]*)[^<>]*?(\/?)>|<!\[CDATA\[([\s\S]*?)\]\]>|([^<]+)|(<)/g;
  const stack: string[] = [];
  const fields = new Map<string, string>();
  let root: string | undefined;
  let text = '';
  let leaf = true;
  for (let m = token.exec(body); m; m = token.exec(body)) {
    const [, closing, name, selfClosing, cdata, chars, stray] = m;
    if (stray) return undefined;
    if (chars !== undefined || cdata !== undefined) {
      if (stack.length === 0) { if ((chars ?? '').trim()) return undefined; continue; }
      text += cdata !== undefined ? cdata : decodeText(chars!);
      continue;
    }
    if (selfClosing) {
      if (stack.length === 0) return undefined;
      if (stack.length === 1 && !fields.has(name)) fields.set(name, '');
      leaf = false;
      continue;
    }
    if (!closing) {
      if (stack.length === 0) {
        if (root !== undefined) return undefined;
        root = name;
      }
      stack.push(name);
      text = '';
      leaf = true;
      continue;
    }
    if (stack.pop() !== name) return undefined;
    if (stack.length === 1 && leaf && !fields.has(name)) fields.set(name, text.trim());
    leaf = false;
    text = '';
  }
  return root !== undefined && stack.length === 0 ? { root, fields: Object.fromEntries(fields) } : undefined;
}
