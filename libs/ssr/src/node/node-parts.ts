import type { Activation } from './activation';
import type { ExpatExchange } from './expat-exchange';
import type { LoadAnswers } from './load-answers';
import type { LoadRequests } from './load-requests';
import type { NodeState } from './node-state';
import type { Repair } from './repair';
import type { ReplicaTimers } from './replica-timers';
import type { Replication } from './replication';
import type { ViewChanges } from './view-changes';

/**
 * The parts of one SSR instance over its one NodeState. Each part carries out the decisions of its rules module
 * (load-rules, replication-rules, replica-timer-rules, expat-list, repair-rules) and calls the others through this.
 */
export interface NodeParts {
  s: NodeState;
  loads: LoadRequests;
  answers: LoadAnswers;
  activation: Activation;
  replication: Replication;
  timers: ReplicaTimers;
  expat: ExpatExchange;
  repair: Repair;
  views: ViewChanges;
}
