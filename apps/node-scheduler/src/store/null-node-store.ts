/** Keeps nothing: a node scheduler without a data directory starts empty after a restart (its state is in memory). */
import { emptyNodeState, type NodeStore, type StoredNodeState } from './node-store';

export class NullNodeStore implements NodeStore {
  load(): StoredNodeState {
    return emptyNodeState();
  }

  putCollection(): void {
    // nothing kept
  }

  deleteCollection(): void {
    // nothing kept
  }

  putRoute(): void {
    // nothing kept
  }

  queued(): void {
    // nothing kept
  }

  taken(): void {
    // nothing kept
  }

  done(): void {
    // nothing kept
  }

  putValidators(): void {
    // nothing kept
  }

  unfed(): void {
    // nothing kept
  }

  forwarded(): void {
    // nothing kept
  }

  forwardsConfirmed(): void {
    // nothing kept
  }

  own(): void {
    // nothing kept
  }

  disown(): void {
    // nothing kept
  }

  duplicate(): void {
    // nothing kept
  }

  duplicatesTaken(): void {
    // nothing kept
  }

  putRobots(): void {
    // nothing kept
  }

  sitemapsRead(): void {
    // nothing kept
  }

  whenDurable(fn: () => void): void {
    fn();
  }

  close(): void {
    // nothing kept
  }
}
