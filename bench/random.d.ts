/** A small seeded PRNG (mulberry32). */
export function random(seed: number): () => number
