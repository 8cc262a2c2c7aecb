/** A node outside the compiled subset: the mapping stays on the jsonata interpreter. */
export class Unsupported extends Error {}
