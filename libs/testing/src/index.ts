/**
 * @esp/testing: real servers for tests. No mocks of the bus.
 *
 *   import { NatsServer, NatsCluster, startNats } from '@esp/testing';
 *   let ns: NatsServer;
 *   beforeAll(async () => { ns = await NatsServer.start(); });   // JetStream, free port, temp store
 *   afterAll(() => ns.cleanup());
 */
export { NatsServer, sleep, type NatsServerOptions } from './nats-server';
export { NatsCluster } from './nats-cluster';
export { natsMode, natsImage, NatsModeError, type NatsMode } from './nats-mode';
export { NatsContainerStartError } from './nats-container';
export { NatsContainerOptionError } from './nats-container-options';
export { ContainerEngineUnavailableError, containerEngine, dockerEngineAvailable } from './container-engine';
export { findNatsServerBinary, requireNatsServerBinary, NatsServerUnavailableError } from './nats-binary';
export { startNats, type TestNats } from './start-nats';
export { waitFor } from './wait-for';
export { reservePorts } from './free-ports';
export { ChildService, type ChildServiceOptions } from './child-service';
export { LocalWebSites, type LocalWebSitesOptions } from './local-web-sites';
export { BIG_PAGE_BYTES, EXTRAS_CRAWL_DELAY_SECONDS } from './local-web-site-extras';
export { selfSignedCertificate, type SelfSignedCertificate } from '@esp/x509';
export { generateRealCorpus, CORPUS_DOCUMENT_LIMIT_BYTES, OVERSIZE_BYTES, type RealCorpusOptions } from './real-corpus';
export {
  expectationName,
  readCorpusManifest,
  writeCorpusManifest,
  type CorpusExpectation,
  type CorpusFile,
  type CorpusKind,
  type CorpusManifest,
} from './real-corpus-manifest';
export { CORPUS_SIZE_MODEL, SeededRandom, logNormalParams, uniqueWord } from './real-corpus-random';
export { encodePng, tinyPng } from './png';
export { formatTimeline, longestGap, unexpectedRestarts, type Gap, type RigLogLine } from './fault-gap';
export { gapDocument, gapMarker, type GapDocument } from './fault-gap-documents';
export { FAULTS, FAULT_GAP_GOALS_MS, NATS_DOWN_MS, FaultGapStack, type Fault, type StackProcess } from './fault-gap-stack';
export { FaultGapTimeout, runFaultGap, type FaultGapResult, type GapFeedClient, type GapFeedConnection, type OpenGapFeed } from './fault-gap-rig';
