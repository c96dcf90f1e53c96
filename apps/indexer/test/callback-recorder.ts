/** A content client's operation_callback object for tests: records what it acknowledged, can refuse on demand. */
import { OperationState, type OperationStatusInfo } from '@esp/codecs';
import { operationCallbackInterface, SystemResourceError, type Aor } from '@esp/interfaces';
import type { Middleware } from '@esp/middleware';
import { brief } from './ops';

export class CallbackRecorder {
  /** Statuses acknowledged (the call returned normally), in arrival order. */
  readonly acked: OperationStatusInfo[] = [];
  /** Every call, refused ones included. */
  readonly attempts: OperationStatusInfo[] = [];
  /** Calls received (a `callbacks` call counts once however many statuses it carries). */
  calls = 0;
  /** While it returns true for a status, the call carrying it is refused with system_resource_error (retryable). */
  refuse: (s: OperationStatusInfo) => boolean = () => false;

  private constructor(readonly aor: Aor) {}

  static async start(mw: Middleware, objectId: string, port = 40000): Promise<CallbackRecorder> {
    const holder: { r?: CallbackRecorder } = {};
    const obj = await mw.activate(
      operationCallbackInterface,
      {
        callback: (status) => holder.r!.take([status]),
        callbacks: (statuses) => holder.r!.take(statuses),
      },
      { object_id: objectId, port },
    );
    holder.r = new CallbackRecorder(obj.aor);
    return holder.r;
  }

  /** One call: all of its statuses are acknowledged, or (one refused) none. */
  private take(statuses: readonly OperationStatusInfo[]): void {
    this.attempts.push(...statuses);
    this.calls++;
    if (statuses.some((s) => this.refuse(s))) throw new SystemResourceError('client busy (test)');
    this.acked.push(...statuses);
  }

  briefs(): string[] {
    return this.acked.map(brief);
  }

  /** How many final statuses (completed covering it, or lost naming it) each of `opIds` got. */
  finalCounts(opIds: readonly number[]): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const id of opIds) {
      counts[id] = this.acked.filter(
        (s) =>
          (s.state === OperationState.completed && s.first_op_id <= id && id <= s.last_op_id) ||
          (s.state === OperationState.lost && s.errors.some((e) => e.operation_id === id)),
      ).length;
    }
    return counts;
  }

  /** True when every secured status was acknowledged before the completed status of the same range. */
  securedBeforeCompleted(): boolean {
    return this.acked.every((s, i) => {
      if (s.state !== OperationState.completed) return true;
      return this.acked.slice(0, i).some((p) => p.state === OperationState.secured && p.first_op_id === s.first_op_id && p.last_op_id === s.last_op_id);
    });
  }
}
