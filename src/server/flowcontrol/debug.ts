// /debug/api_priority_and_fairness/dump_priority_levels, dump_queues and
// dump_requests: upstream's comma-and-tab tables (apf_controller_debug.go),
// aligned as Go's tabwriter aligns them (minimum cell width 8, padding 1).

import type { FlowController } from './controller.js';

export const DEBUG_PREFIX = '/debug/api_priority_and_fairness/';

/** Go's tabwriter over rows of cells: every cell but a line's last is padded to its column's width. */
function tabulate(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, Math.max(8, cell.length + 1))));
  return rows.map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i]!) : cell)).join('')).join('\n') + '\n';
}

function row(cells: (string | number | boolean)[]): string[] {
  return cells.map((c, i) => (i < cells.length - 1 ? `${String(c)},` : String(c)));
}

export function dumpPriorityLevels(fc: FlowController): string {
  const rows = [row(['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests'])];
  for (const l of fc.priorityLevels().sort((a, b) => (a.config.name < b.config.name ? -1 : 1))) {
    const active = l.queues.filter((q) => q.items.length > q.head).length;
    rows.push(row([l.config.name, active, l.executing === 0 && l.waiting === 0, false, l.waiting, l.executing, l.dispatched, l.rejected, l.timedOut, l.cancelled]));
  }
  return tabulate(rows);
}

export function dumpQueues(fc: FlowController): string {
  const rows = [row(['PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum'])];
  for (const l of fc.priorityLevels()) {
    l.queues.forEach((q, i) => {
      const pending = q.items.slice(q.head);
      const seats = pending.reduce((n, w) => n + w.width, 0);
      rows.push(row([l.config.name, i, pending.length, q.executingSeats > 0 ? 1 : 0, q.executingSeats, `${q.virtualTime.toFixed(8)}ss`, seats, seats, `${seats.toFixed(8)}ss`]));
    });
  }
  return tabulate(rows);
}

export function dumpRequests(fc: FlowController, now: number): string {
  const rows = [row(['PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency', 'StartTime'])];
  for (const l of fc.priorityLevels()) {
    l.queues.forEach((q, qi) => {
      for (let i = q.head; i < q.items.length; i++) {
        const w = q.items[i]!;
        rows.push(row([l.config.name, w.flowSchema, qi, i - q.head, '', new Date(w.enqueuedAt).toISOString(), w.width, 0, '0s', new Date(now).toISOString()]));
      }
    });
  }
  return tabulate(rows);
}
