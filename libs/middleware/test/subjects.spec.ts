import { describe, expect, it } from 'vitest';
import { objectSubject, objectsWithIdPrefix } from '../src/subjects';

describe('object subjects', () => {
  it("an object id's '/'-separated segments are tokens of their own, each escaped; an empty one is '%'", () => {
    expect(objectSubject('processing::processor_server', 'vm', 16390, 'processor_server/item-processor-1/42')).toBe('esp.obj.processing::processor_server.vm.16390.processor_server.item-processor-1.42');
    expect(objectSubject('t', 'h', 1, 'a//b.c')).toBe('esp.obj.t.h.1.a.%.b%2Ec');
    expect(objectSubject('t', 'h', 1, 'plain')).toBe('esp.obj.t.h.1.plain');
    // one id, one subject: a segment holding '%' or '.' cannot pose as two segments
    expect(objectSubject('t', 'h', 1, 'a.b')).not.toBe(objectSubject('t', 'h', 1, 'a/b'));
    expect(objectSubject('t', 'h', 1, '%/x')).not.toBe(objectSubject('t', 'h', 1, '/x'));
  });

  it('objectsWithIdPrefix names the objects of one owner on any host and port', () => {
    expect(objectsWithIdPrefix('processing::processor_server', 'processor_server/item-processor-1')).toBe('esp.obj.processing::processor_server.*.*.processor_server.item-processor-1.>');
    expect(objectsWithIdPrefix('t', 'a/b.c')).toBe('esp.obj.t.*.*.a.b%2Ec.>');
  });
});
