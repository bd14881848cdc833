/**
 * The size of a spool's files, shared by the threads that append to it (each capture thread
 * adds what it writes) and the one that consumes it (which subtracts what it deletes).
 */
export class SpoolBytes {
  private readonly cell: BigInt64Array

  constructor(readonly shared: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cell = new BigInt64Array(shared)
  }

  add(bytes: number): void {
    Atomics.add(this.cell, 0, BigInt(bytes))
  }

  get value(): number {
    return Number(Atomics.load(this.cell, 0))
  }
}
