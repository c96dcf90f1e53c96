import { describe, expect, it } from 'vitest';
import {
  ASSIGN_DISPATCHER_NONE_AVAILABLE,
  CHECK_FOR_MASTER_INTERVAL_MS,
  CHECK_MASTER_STATUS_INTERVAL_MS,
  DEFAULT_LEASE_TIMEOUT_MS,
  DEFAULT_LEASE_TIMEOUT_SECONDS,
  DEFAULT_REREGISTRATION_LEASE_MS,
  DISPATCHER_NAME,
  dispatcherNodeName,
  EXTERNAL_SESSION_PORT_OFFSET,
  INTERNAL_PORT_OFFSET,
  LEASE_LOST_DESCRIPTION,
  LEASE_LOST_ERROR_CODE,
  MASTER_PING_FAILURES_BEFORE_TAKEOVER,
  REQUIRED_PRIORITY,
  sessionPortOffset,
} from './constants';
import { validateResult } from '../define-interface';
import { masterDispatcherInterface } from './master-dispatcher';

describe('processing constants', () => {
  it('well-known names (MS-FSCDFT 3.1.3, 3.5.3; MS-FSDPD 3.3.3, 3.5.3)', () => {
    expect(DISPATCHER_NAME).toBe('esp/subsystems/processing/dispatcher');
    expect(dispatcherNodeName(0)).toBe('esp/subsystems/processing/dispatcher/0');
    expect(dispatcherNodeName(12)).toBe('esp/subsystems/processing/dispatcher/12');
  });

  it.each([-1, 1.5, Number.NaN])('dispatcherNodeName refuses %s', (id) => {
    expect(() => dispatcherNodeName(id)).toThrow(RangeError);
  });

  it('ports: base + 390 for the distributor objects and internal sessions, + 391 for external-client sessions', () => {
    expect(INTERNAL_PORT_OFFSET).toBe(390);
    expect(EXTERNAL_SESSION_PORT_OFFSET).toBe(391);
    expect(sessionPortOffset(false)).toBe(390);
    expect(sessionPortOffset(true)).toBe(391);
  });

  it('timers: 5 s master checks, 3 failed pings, 300 s lease, 180 s reregistration', () => {
    expect(CHECK_MASTER_STATUS_INTERVAL_MS).toBe(5000);
    expect(CHECK_FOR_MASTER_INTERVAL_MS).toBe(5000);
    expect(MASTER_PING_FAILURES_BEFORE_TAKEOVER).toBe(3);
    expect(DEFAULT_LEASE_TIMEOUT_SECONDS).toBe(300);
    expect(DEFAULT_LEASE_TIMEOUT_MS).toBe(300_000);
    expect(DEFAULT_REREGISTRATION_LEASE_MS).toBe(180_000);
  });

  it('fixed values: assign_dispatcher none = 1 (a valid result), priority 0, lease-lost error 4', () => {
    expect(ASSIGN_DISPATCHER_NONE_AVAILABLE).toBe(1);
    expect(validateResult(masterDispatcherInterface.methods.assign_dispatcher, ASSIGN_DISPATCHER_NONE_AVAILABLE).ok).toBe(true);
    expect(REQUIRED_PRIORITY).toBe(0);
    expect(LEASE_LOST_ERROR_CODE).toBe(4);
    expect(LEASE_LOST_DESCRIPTION).toBe('failed to submit operation to next subsystem');
  });
});
