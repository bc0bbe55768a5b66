// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// batch/v1 Jobs and CronJobs.
import { AGE_COLUMN, column, containerCells, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, objectAge, objectName, type Printer, selectorColumn } from '../../tables/printer.js';
import { arr, at, int, type Obj, rec, str } from '../../tables/fields.js';
import { formatLabelSelector } from '../../tables/labels.js';
import { humanDuration, parseTimestamp } from '../../tables/duration.js';

function hasCondition(o: Obj, type: string): boolean {
  return arr(at(o, 'status', 'conditions')).some((c) => str(rec(c)['type']) === type && str(rec(c)['status']) === 'True');
}

function jobStatus(o: Obj): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (at(o, 'metadata', 'deletionTimestamp') !== undefined) return 'Terminating';
  if (hasCondition(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(o: Obj): string {
  const succeeded = int(at(o, 'status', 'succeeded'));
  const completions = at(o, 'spec', 'completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = int(at(o, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: Obj, now: Date): string {
  const start = parseTimestamp(at(o, 'status', 'startTime'));
  if (start === undefined) return '';
  const end = parseTimestamp(at(o, 'status', 'completionTime'));
  return humanDuration((end ?? now.getTime()) - start);
}

/** A selector cell that is "<none>" when the selector is absent (jobs, cron jobs). */
function selectorCell(selector: unknown): string {
  return selector === undefined || selector === null ? '<none>' : formatLabelSelector(selector);
}

export const jobPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'Succeeded pods out of desired completions.'),
    column('Duration', 'string', 'Time the job took (or has taken so far).'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    selectorColumn('Label selector of the job.'),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return { cells: [objectName(o), jobStatus(o), jobCompletions(o), jobDuration(o, now), objectAge(o, now), containers, images, selectorCell(at(o, 'spec', 'selector'))] };
  },
};

export const cronJobPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Schedule', 'string', 'Cron schedule.'),
    column('Timezone', 'string', 'Time zone of the schedule.'),
    column('Suspend', 'boolean', 'Whether new runs are suspended.'),
    column('Active', 'integer', 'Jobs running now.'),
    column('Last Schedule', 'string', 'Time since the last scheduled run.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    selectorColumn('Label selector of the job template.'),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers'));
    const last = parseTimestamp(at(o, 'status', 'lastScheduleTime'));
    const timeZone = at(o, 'spec', 'timeZone');
    return {
      cells: [
        objectName(o),
        str(at(o, 'spec', 'schedule')),
        typeof timeZone === 'string' ? timeZone : '<none>',
        // Declared boolean, printed as Go prints a *bool's value: "True" / "False".
        at(o, 'spec', 'suspend') === true ? 'True' : 'False',
        arr(at(o, 'status', 'active')).length,
        last === undefined ? '<none>' : humanDuration(now.getTime() - last),
        objectAge(o, now),
        containers,
        images,
        selectorCell(at(o, 'spec', 'jobTemplate', 'spec', 'selector')),
      ],
    };
  },
};

/** The printers by kind, for api/tables/index.ts. */
export const batchPrinters: Record<string, Printer> = {
  Job: jobPrinter,
  CronJob: cronJobPrinter,
};
