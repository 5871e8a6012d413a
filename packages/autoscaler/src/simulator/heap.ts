/** A binary min-heap of (time, id) pairs; the simulator's completion queue. */
export class TimeHeap {
  private t: number[] = [];
  private id: number[] = [];

  /** Number of entries. */
  get size(): number {
    return this.t.length;
  }

  /** Earliest time, or Infinity when empty. */
  peekTime(): number {
    return this.t.length > 0 ? (this.t[0] as number) : Number.POSITIVE_INFINITY;
  }

  /** Adds an entry. */
  push(time: number, id: number): void {
    const t = this.t;
    const ids = this.id;
    let i = t.length;
    t.push(time);
    ids.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((t[p] as number) <= time) break;
      t[i] = t[p] as number;
      ids[i] = ids[p] as number;
      i = p;
    }
    t[i] = time;
    ids[i] = id;
  }

  /** Removes the earliest entry and returns its id (the heap must not be empty). */
  pop(): number {
    const t = this.t;
    const ids = this.id;
    const top = ids[0] as number;
    const lastT = t.pop() as number;
    const lastId = ids.pop() as number;
    const n = t.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && (t[r] as number) < (t[l] as number) ? r : l;
        if ((t[c] as number) >= lastT) break;
        t[i] = t[c] as number;
        ids[i] = ids[c] as number;
        i = c;
      }
      t[i] = lastT;
      ids[i] = lastId;
    }
    return top;
  }
}
