// Where decoded columns' typed arrays live. On the main thread, ordinary (heap) buffers; in a
// decode worker, SharedArrayBuffers, so the arrays a worker fills are handed to the main thread
// as views of the same memory: posting them copies no column data.

export interface ArrayAllocator {
  int32(length: number): Int32Array;
  float64(length: number): Float64Array;
  uint8(length: number): Uint8Array;
}

export const heapArrays: ArrayAllocator = {
  int32: (length) => new Int32Array(length),
  float64: (length) => new Float64Array(length),
  uint8: (length) => new Uint8Array(length),
};

export const sharedArrays: ArrayAllocator = {
  int32: (length) => new Int32Array(new SharedArrayBuffer(length * Int32Array.BYTES_PER_ELEMENT)),
  float64: (length) => new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT)),
  uint8: (length) => new Uint8Array(new SharedArrayBuffer(length)),
};
