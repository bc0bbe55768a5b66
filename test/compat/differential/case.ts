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
  /**
   * Values to remember from this answer's JSON body, per server, by a dotted
   * path (`metadata.resourceVersion`, `items.0.metadata.uid`): `{name}` in
   * later paths and bodies of the case is replaced by the value this server
   * gave (a resourceVersion to watch from, a uid for a precondition).
   */
  capture?: Record<string, string>;
  /**
   * Regular expressions for generated values the masking does not know
   * (e.g. `current: \\d+` in a message): matches become `<masked>` on both
   * sides before the comparison. Use sparingly, and say why in the title.
   */
  mask?: string[];
  /**
   * Compare only this part of the JSON answer: a dotted path whose segments
   * may pick a list element by index or by a field (`resources[name=pods]`,
   * `items[0].versions[version=v1]`). For documents that hold more than
   * apiary serves (discovery): the entries of what it serves are compared.
   */
  select?: string;
  /**
   * Repeat the request (up to 20 s) until the value at this dotted path of
   * its JSON answer equals `equals`, on each server — for state a controller
   * writes (a namespace's deletion conditions, a finalizer it removes, a
   * webhook configuration in effect; the answer waited for may be an error). In
   * setup, a condition still false after that fails the case; in steps, the
   * last answers are compared.
   */
  until?: { path: string; equals: unknown };
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
  /** Requests run on both servers after the steps, answers ignored: removes cluster-scoped objects the case made. */
  cleanup?: DiffRequest[];
}
