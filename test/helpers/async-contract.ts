// Type-level checks that a PostgreSQL repository keeps a SQLite repository's contract. A mismatch fails the
// build (and so `npm test`), which is where these tests fail.

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends (<T>() => T extends Y ? 1 : 2) ? true : false;
type Signature<F> = F extends (...args: infer A) => infer R ? [A, R] : never;

/**
 * `true` when `Pg`'s public methods are exactly `Lite`'s (names, parameter lists, optional ones included), each
 * returning a Promise of what `Lite`'s resolves to; `false` otherwise, a type error where `true` is expected.
 */
export type SameAsync<Pg, Lite> = Equal<keyof Pg, keyof Lite> extends true
  ? { [K in keyof Lite]: Equal<Signature<Pg[K & keyof Pg]>, Signature<Lite[K]> extends [infer A, infer R] ? [A, Promise<Awaited<R>>] : never> }[keyof Lite] extends true
    ? true
    : false
  : false;
