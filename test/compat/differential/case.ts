// The shape of a differential case: a scripted sequence of requests sent to
// apiary and to a real kube-apiserver 1.32, whose answers (status, Status
// reason/message/details, Warning headers, object shape, list metadata,
// watch events) are compared after generated values are masked.
// Every file in ./cases/ exports `cases: DiffCase[]`.

export type DiffMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface DiffRequest {
  /** What the step checks, for the report. */
  title?: string;
  method: DiffMethod;
  /** Path and query. `{ns}` stands for the case's own namespace. */
  path: string;
  /** An object is sent as JSON; a string is sent as it is. `{ns}` is replaced in both. */
  body?: unknown;
  /** Content-Type, Accept, User-Agent, … */
  headers?: Record<string, string>;
  /** A watch (path with ?watch=true): read this many events, then compare their types and objects. */
  watchEvents?: number;
}

export interface DiffCase {
  name: string;
  /**
   * Each case runs in a namespace of its own (`{ns}`), created on both
   * servers before it and deleted after it. Setup steps run first on both;
   * their answers are not compared.
   */
  setup?: DiffRequest[];
  steps: DiffRequest[];
}
