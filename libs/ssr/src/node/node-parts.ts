import { Activation } from './activation';
import { ExpatExchange } from './expat-exchange';
import { LoadAnswers } from './load-answers';
import { LoadRequests } from './load-requests';
import type { NodeState } from './node-state';
import { Repair } from './repair';
import { ReplicaTimers } from './replica-timers';
import { Replication } from './replication';
import { ViewChanges } from './view-changes';

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

/** Every part over `s`; a part reaches the others only when called, so the order here does not matter. */
export function nodeParts(s: NodeState): NodeParts {
  const n = { s } as NodeParts;
  n.loads = new LoadRequests(n);
  n.answers = new LoadAnswers(n);
  n.activation = new Activation(n);
  n.replication = new Replication(n);
  n.timers = new ReplicaTimers(n);
  n.expat = new ExpatExchange(n);
  n.repair = new Repair(n);
  n.views = new ViewChanges(n);
  return n;
}
