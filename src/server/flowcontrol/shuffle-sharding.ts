// Shuffle sharding (upstream's util/shufflesharding): a flow's hash deals it
// a hand of `handSize` distinct queues out of `deckSize`, so two flows rarely
// share their whole hand and one flow's flood cannot fill every queue.

/** 53 bits of FNV-1a over the flow's key: two 32-bit lanes (JavaScript numbers stay exact below 2^53). */
export function flowHash(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/**
 * Deals `handSize` distinct cards of 0..deckSize-1 from `hash`: each draw takes
 * the hash's remainder among the cards left, then divides it away.
 */
export function dealHand(hash: number, deckSize: number, handSize: number, into: number[] = []): number[] {
  into.length = 0;
  let h = hash;
  for (let i = 0; i < handSize; i++) {
    const left = deckSize - i;
    let card = h % left;
    h = Math.floor(h / left);
    // Skip the cards already drawn (kept sorted ascending): the remainder indexes the cards left.
    let j = 0;
    while (j < into.length && into[j]! <= card) {
      card++;
      j++;
    }
    into.splice(j, 0, card);
  }
  return into;
}
