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
import {
  type CheetahFieldWriter,
  type CheetahWire,
  type Writable,
  CheetahEntity,
  cheetahDescriptor,
  wireConstructor,
} from './entity';
import { type Action } from './enums';
import {
  type CheetahSubsystem,
  checkAction,
  checkEmpty,
  checkInt,
  checkLong,
  checkString,
  checkSubsystem,
} from './field-checks';

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

  static decodeCheetahFields(wire: CheetahWire): Warning {
    return new WarningWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.warning_code);
    write(this.description);
    write(this.subsystem);
    write(this.session_id);
    write(this.operation_id);
  }
}

const WarningWire = wireConstructor(Warning, function (w) {
  this.warning_code = checkInt(this, 'warning_code', w[2]);
  this.description = checkString(this, 'description', w[3]);
  this.subsystem = checkSubsystem(this, 'subsystem', w[4]);
  this.session_id = checkInt(this, 'session_id', w[5]);
  this.operation_id = checkLong(this, 'operation_id', w[6]);
});

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

  static decodeCheetahFields(wire: CheetahWire): DocumentError {
    return new DocumentErrorWire(wire);
  }

  encodeCheetahFields(write: CheetahFieldWriter): void {
    write(this.error_code);
    write(this.suggested_action);
    write(this.description);
    write(this.subsystem);
    write(this.session_id);
    write(this.operation_id);
    write(this.arguments);
  }
}

/** Decodes the fields of `error` (wire positions 2..8) into any error entity. */
function decodeErrorFields(self: Writable<DocumentError>, w: CheetahWire): void {
  self.error_code = checkInt(self, 'error_code', w[2]);
  self.suggested_action = checkAction(self, 'suggested_action', w[3]);
  self.description = checkString(self, 'description', w[4]);
  self.subsystem = checkSubsystem(self, 'subsystem', w[5]);
  self.session_id = checkInt(self, 'session_id', w[6]);
  self.operation_id = checkLong(self, 'operation_id', w[7]);
  self.arguments = checkEmpty(self, 'arguments', w[8], 'string');
}

const DocumentErrorWire = wireConstructor(DocumentError, function (w) {
  decodeErrorFields(this, w);
});

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

  static override decodeCheetahFields(w: CheetahWire): ProcessingError {
    return new ProcessingErrorWire(w);
  }

  override encodeCheetahFields(write: CheetahFieldWriter): void {
    super.encodeCheetahFields(write);
    write(this.processor);
  }
}

function decodeProcessingErrorFields(self: Writable<ProcessingError>, w: CheetahWire): void {
  decodeErrorFields(self, w);
  self.processor = checkString(self, 'processor', w[9]);
}

const ProcessingErrorWire = wireConstructor(ProcessingError, function (w) {
  decodeProcessingErrorFields(this, w);
});

/** 2.2.5 `cht::documentmessages::format_error` (type id 22): the item operation has an invalid format. */
export class FormatError extends ProcessingError {
  static override readonly cheetah = errorDescriptor('format_error', 22, ['processor']);

  static override decodeCheetahFields(w: CheetahWire): FormatError {
    return new FormatErrorWire(w);
  }
}

const FormatErrorWire = wireConstructor(FormatError, function (w) {
  decodeProcessingErrorFields(this, w);
});

/** 2.2.6 `cht::documentmessages::xml_error` (type id 55): the item operation contains invalid XML. */
export class XmlError extends FormatError {
  static override readonly cheetah = errorDescriptor('xml_error', 55, ['processor']);

  static override decodeCheetahFields(w: CheetahWire): XmlError {
    return new XmlErrorWire(w);
  }
}

const XmlErrorWire = wireConstructor(XmlError, function (w) {
  decodeProcessingErrorFields(this, w);
});

/** 2.2.7 `cht::documentmessages::utf8_error` (type id 54): the item operation contains invalid UTF-8. */
export class Utf8Error extends FormatError {
  static override readonly cheetah = errorDescriptor('utf8_error', 54, ['processor']);

  static override decodeCheetahFields(w: CheetahWire): Utf8Error {
    return new Utf8ErrorWire(w);
  }
}

const Utf8ErrorWire = wireConstructor(Utf8Error, function (w) {
  decodeProcessingErrorFields(this, w);
});

/** 2.2.8 `cht::documentmessages::server_unavailable` (type id 47): a server could not be reached while processing. */
export class ServerUnavailable extends ProcessingError {
  static override readonly cheetah = errorDescriptor('server_unavailable', 47, ['processor']);

  static override decodeCheetahFields(w: CheetahWire): ServerUnavailable {
    return new ServerUnavailableWire(w);
  }
}

const ServerUnavailableWire = wireConstructor(ServerUnavailable, function (w) {
  decodeProcessingErrorFields(this, w);
});

/** 2.2.9 `cht::documentmessages::operation_dropped` (type id 36): the operation MUST NOT be indexed. */
export class OperationDropped extends ProcessingError {
  static override readonly cheetah = errorDescriptor('operation_dropped', 36, ['processor']);

  static override decodeCheetahFields(w: CheetahWire): OperationDropped {
    return new OperationDroppedWire(w);
  }
}

const OperationDroppedWire = wireConstructor(OperationDropped, function (w) {
  decodeProcessingErrorFields(this, w);
});

/** 2.2.10 `cht::documentmessages::operation_lost` (type id 37): the operation was lost in processing or indexing. */
export class OperationLost extends DocumentError {
  static override readonly cheetah = errorDescriptor('operation_lost', 37);

  static override decodeCheetahFields(w: CheetahWire): OperationLost {
    return new OperationLostWire(w);
  }
}

const OperationLostWire = wireConstructor(OperationLost, function (w) {
  decodeErrorFields(this, w);
});
