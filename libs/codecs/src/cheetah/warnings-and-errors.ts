/**
 * How an item operation went wrong (MS-FSDPD 2.2.2-2.2.10): `warning`, and `error` with its subtypes. The `error`
 * entity is exported as DocumentError so that it does not shadow the JavaScript Error.
 *
 *   error
 *   +- processing_error
 *   |  +- format_error
 *   |  |  +- xml_error
 *   |  |  +- utf8_error
 *   |  +- server_unavailable
 *   |  +- operation_dropped
 *   +- operation_lost
 */
import { type CheetahOwner, type Writable, CheetahEntity, cheetahDescriptor, wireConstructor } from './entity';
import { type Action, isAction } from './enums';
import {
  type CheetahSubsystem,
  checkAction,
  checkEmpty,
  checkInt,
  checkLong,
  checkString,
  checkSubsystem,
  fieldTypeError,
  mustBeEmpty,
  mustBeSubsystem,
} from './field-checks';
import {
  EMPTY_COLLECTION,
  readEntity,
  readEntityCollectionHeader,
  readInt,
  readLong,
  readString,
  readStrings,
} from './wire-reader';
import { writeInteger, writeString, writeStrings } from './wire-writer';

export interface WarningFields {
  readonly warning_code: number;
  readonly description: string;
  /** MUST be "indexing" or "processing". */
  readonly subsystem: CheetahSubsystem;
  readonly session_id: number;
  readonly operation_id: number;
}

/** 2.2.2 `cht::documentmessages::warning` (type id 6): a warning about one item operation. */
export class Warning extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('documentmessages', 'warning', 6, [
    'warning_code',
    'description',
    'subsystem',
    'session_id',
    'operation_id',
  ]);
  declare readonly warning_code: number;
  declare readonly description: string;
  declare readonly subsystem: CheetahSubsystem;
  declare readonly session_id: number;
  declare readonly operation_id: number;

  constructor(fields: WarningFields) {
    super();
    this.warning_code = checkInt(this, 'warning_code', fields.warning_code);
    this.description = checkString(this, 'description', fields.description);
    this.subsystem = checkSubsystem(this, 'subsystem', fields.subsystem);
    this.session_id = checkInt(this, 'session_id', fields.session_id);
    this.operation_id = checkLong(this, 'operation_id', fields.operation_id);
  }

  static decodeCheetahFields(): Warning {
    const w = new WarningWire();
    w.warning_code = readInt(Warning, 'warning_code');
    w.description = readString(Warning, 'description');
    w.subsystem = mustBeSubsystem(Warning, 'subsystem', readString(Warning, 'subsystem'));
    w.session_id = readInt(Warning, 'session_id');
    w.operation_id = readLong(Warning, 'operation_id');
    return w;
  }

  encodeCheetahFields(): void {
    writeInteger(this.warning_code);
    writeString(this.description);
    writeString(this.subsystem);
    writeInteger(this.session_id);
    writeInteger(this.operation_id);
  }
}

const WarningWire = wireConstructor(Warning, function () {
  // fields assigned by the decoder
}) as unknown as new () => Writable<Warning>;

/** Reads a collection of warning from the wire. */
export function readWarnings(owner: CheetahOwner, field: string): readonly Warning[] {
  const n = readEntityCollectionHeader(owner, field);
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<Warning>(n);
  for (let i = 0; i < n; i++) {
    const e = readEntity(owner, field, i);
    if (!(e instanceof Warning)) throw fieldTypeError(owner, field, `a ${Warning.cheetah.name}`, e, i);
    out[i] = e;
  }
  return out;
}

export interface DocumentErrorFields {
  readonly error_code: number;
  /** The RECOMMENDED action for the client. */
  readonly suggested_action: Action;
  readonly description: string;
  /** MUST be "indexing" or "processing". */
  readonly subsystem: CheetahSubsystem;
  readonly session_id: number;
  readonly operation_id: number;
  /** Unused: MUST be empty; defaults to []. */
  readonly arguments?: readonly string[];
}

/** 2.2.3 `cht::documentmessages::error` (type id 15): an error about one item operation. */
export class DocumentError extends CheetahEntity {
  static override readonly cheetah = cheetahDescriptor('documentmessages', 'error', 15, [
    'error_code',
    'suggested_action',
    'description',
    'subsystem',
    'session_id',
    'operation_id',
    'arguments',
  ]);
  declare readonly error_code: number;
  declare readonly suggested_action: Action;
  declare readonly description: string;
  declare readonly subsystem: CheetahSubsystem;
  declare readonly session_id: number;
  declare readonly operation_id: number;
  declare readonly arguments: readonly string[];

  constructor(fields: DocumentErrorFields) {
    super();
    this.error_code = checkInt(this, 'error_code', fields.error_code);
    this.suggested_action = checkAction(this, 'suggested_action', fields.suggested_action);
    this.description = checkString(this, 'description', fields.description);
    this.subsystem = checkSubsystem(this, 'subsystem', fields.subsystem);
    this.session_id = checkInt(this, 'session_id', fields.session_id);
    this.operation_id = checkLong(this, 'operation_id', fields.operation_id);
    this.arguments = fields.arguments === undefined ? [] : checkEmpty(this, 'arguments', fields.arguments, 'string');
  }

  static decodeCheetahFields(): DocumentError {
    return decodeErrorFields(DocumentError, new DocumentErrorWire());
  }

  encodeCheetahFields(): void {
    writeInteger(this.error_code);
    writeInteger(this.suggested_action);
    writeString(this.description);
    writeString(this.subsystem);
    writeInteger(this.session_id);
    writeInteger(this.operation_id);
    writeStrings(this.arguments);
  }
}

/** Reads the fields of `error` into a fresh decoded instance of any error entity. */
function decodeErrorFields<T extends Writable<DocumentError>>(owner: CheetahOwner, e: T): T {
  e.error_code = readInt(owner, 'error_code');
  const action = readInt(owner, 'suggested_action');
  if (!isAction(action)) throw fieldTypeError(owner, 'suggested_action', 'an action (0..3)', action);
  e.suggested_action = action;
  e.description = readString(owner, 'description');
  e.subsystem = mustBeSubsystem(owner, 'subsystem', readString(owner, 'subsystem'));
  e.session_id = readInt(owner, 'session_id');
  e.operation_id = readLong(owner, 'operation_id');
  e.arguments = mustBeEmpty(owner, 'arguments', readStrings(owner, 'arguments'));
  return e;
}

function decoder<T extends DocumentError>(type: abstract new (...args: never) => T): new () => Writable<T> {
  return wireConstructor(type, function () {
    // fields assigned by the decoder
  }) as unknown as new () => Writable<T>;
}

const DocumentErrorWire = decoder(DocumentError);

/** Reads one error entity (any subtype) from the wire. */
export function readDocumentError(owner: CheetahOwner, field: string): DocumentError {
  const e = readEntity(owner, field);
  if (!(e instanceof DocumentError)) throw fieldTypeError(owner, field, `a ${DocumentError.cheetah.name}`, e);
  return e;
}

/** Reads a collection of error entities (any subtype) from the wire. */
export function readDocumentErrors(owner: CheetahOwner, field: string): readonly DocumentError[] {
  const n = readEntityCollectionHeader(owner, field);
  if (n === 0) return EMPTY_COLLECTION;
  const out = new Array<DocumentError>(n);
  for (let i = 0; i < n; i++) {
    const e = readEntity(owner, field, i);
    if (!(e instanceof DocumentError)) throw fieldTypeError(owner, field, `a ${DocumentError.cheetah.name}`, e, i);
    out[i] = e;
  }
  return out;
}

function errorDescriptor(name: string, typeId: number, own: readonly string[] = []) {
  return cheetahDescriptor('documentmessages', name, typeId, [...DocumentError.cheetah.fields, ...own]);
}

export interface ProcessingErrorFields extends DocumentErrorFields {
  /** The item processing stage during which the error occurred. */
  readonly processor: string;
}

/** 2.2.4 `cht::documentmessages::processing_error` (type id 21): an error while processing an item operation. */
export class ProcessingError extends DocumentError {
  static override readonly cheetah = errorDescriptor('processing_error', 21, ['processor']);
  declare readonly processor: string;

  constructor(fields: ProcessingErrorFields) {
    super(fields);
    this.processor = checkString(this, 'processor', fields.processor);
  }

  static override decodeCheetahFields(): ProcessingError {
    return decodeProcessingErrorFields(ProcessingError, new ProcessingErrorWire());
  }

  override encodeCheetahFields(): void {
    super.encodeCheetahFields();
    writeString(this.processor);
  }
}

function decodeProcessingErrorFields<T extends Writable<ProcessingError>>(owner: CheetahOwner, e: T): T {
  decodeErrorFields(owner, e);
  e.processor = readString(owner, 'processor');
  return e;
}

const ProcessingErrorWire = decoder(ProcessingError);

/** 2.2.5 `cht::documentmessages::format_error` (type id 22): the item operation has an invalid format. */
export class FormatError extends ProcessingError {
  static override readonly cheetah = errorDescriptor('format_error', 22, ['processor']);

  static override decodeCheetahFields(): FormatError {
    return decodeProcessingErrorFields(FormatError, new FormatErrorWire());
  }
}

const FormatErrorWire = decoder(FormatError);

/** 2.2.6 `cht::documentmessages::xml_error` (type id 55): the item operation contains invalid XML. */
export class XmlError extends FormatError {
  static override readonly cheetah = errorDescriptor('xml_error', 55, ['processor']);

  static override decodeCheetahFields(): XmlError {
    return decodeProcessingErrorFields(XmlError, new XmlErrorWire());
  }
}

const XmlErrorWire = decoder(XmlError);

/** 2.2.7 `cht::documentmessages::utf8_error` (type id 54): the item operation contains invalid UTF-8. */
export class Utf8Error extends FormatError {
  static override readonly cheetah = errorDescriptor('utf8_error', 54, ['processor']);

  static override decodeCheetahFields(): Utf8Error {
    return decodeProcessingErrorFields(Utf8Error, new Utf8ErrorWire());
  }
}

const Utf8ErrorWire = decoder(Utf8Error);

/** 2.2.8 `cht::documentmessages::server_unavailable` (type id 47): a server could not be reached while processing. */
export class ServerUnavailable extends ProcessingError {
  static override readonly cheetah = errorDescriptor('server_unavailable', 47, ['processor']);

  static override decodeCheetahFields(): ServerUnavailable {
    return decodeProcessingErrorFields(ServerUnavailable, new ServerUnavailableWire());
  }
}

const ServerUnavailableWire = decoder(ServerUnavailable);

/** 2.2.9 `cht::documentmessages::operation_dropped` (type id 36): the operation MUST NOT be indexed. */
export class OperationDropped extends ProcessingError {
  static override readonly cheetah = errorDescriptor('operation_dropped', 36, ['processor']);

  static override decodeCheetahFields(): OperationDropped {
    return decodeProcessingErrorFields(OperationDropped, new OperationDroppedWire());
  }
}

const OperationDroppedWire = decoder(OperationDropped);

/** 2.2.10 `cht::documentmessages::operation_lost` (type id 37): the operation was lost in processing or indexing. */
export class OperationLost extends DocumentError {
  static override readonly cheetah = errorDescriptor('operation_lost', 37);

  static override decodeCheetahFields(): OperationLost {
    return decodeErrorFields(OperationLost, new OperationLostWire());
  }
}

const OperationLostWire = decoder(OperationLost);
