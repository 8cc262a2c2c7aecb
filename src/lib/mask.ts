/** `sk_test_51Habc…a1b2` -> `sk_…a1b2`: the prefix up to the first underscore and the last four characters. */
export function maskSecret(value: string): string {
  if (value.length < 12) return '••••';
  const underscore = value.indexOf('_');
  const prefix = underscore > 0 && underscore <= 8 ? value.slice(0, underscore + 1) : '';
  return `${prefix}…${value.slice(-4)}`;
}

export function maskAll(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, maskSecret(v)]));
}
