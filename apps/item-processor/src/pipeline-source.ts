/**
 * The pipelines an item processor runs now, and where a reload takes them from: the local configuration (a file,
 * or the given object), or the config server once the processor follows one (ResetContainer, MS-FSDPD 3.7.3). The
 * Status interface reports the known stages and pipelines of whatever is taken.
 *
 *   const pipelines = new PipelineSource(opts.pipelineConfig ?? DEFAULT_PIPELINE_CONFIG, status, log);
 *   batches.run(pipelines.current);
 *   await pipelines.reload();            // Status::reinitialize
 */
import { readFileSync } from 'node:fs';
import { buildPipelines, loadPipelineConfig, type PipelineConfig, type PipelineSet } from '@esp/pipeline';
import type { Logger } from '@esp/logging';
import type { StatusState } from './status/status-state';

/** What a reload asks when the processor follows a config server. */
export interface PipelineConfigServer {
  /** Loads the configuration there and takes it; true when it was taken. */
  reset(): Promise<boolean>;
}

export class PipelineSource {
  private set: PipelineSet;
  private server: PipelineConfigServer | undefined;

  /** Builds the local configuration; a bad one throws, with the reason (it stops the start). */
  constructor(
    private readonly local: string | PipelineConfig,
    private readonly status: StatusState,
    private readonly log: Logger,
  ) {
    this.set = this.buildLocal();
    status.setKnown(known(this.set));
    status.flush();
  }

  get current(): PipelineSet {
    return this.set;
  }

  /**
   * Takes a configuration (a batch in flight finishes on the pipeline it started with); the pipeline names. Throws
   * when it does not build (the previous one stays).
   */
  take(config: PipelineConfig): string[] {
    return this.install(buildPipelines(config));
  }

  /** From now on reloads come from the config server. */
  follow(server: PipelineConfigServer): void {
    this.server = server;
  }

  /** Status::reinitialize: reads the configuration again; false (the previous one stays) when it does not build. */
  reload(): boolean | Promise<boolean> {
    if (this.server) return this.server.reset();
    try {
      this.install(this.buildLocal());
      return true;
    } catch (err) {
      this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'pipeline configuration not reloaded; keeping the previous one');
      return false;
    }
  }

  /** The local configuration as a value, read now (the config server's fallback when it has no pipelines file). */
  localConfig(): unknown {
    return typeof this.local === 'string' ? (JSON.parse(readFileSync(this.local, 'utf8')) as unknown) : this.local;
  }

  private install(set: PipelineSet): string[] {
    this.set = set;
    this.status.setKnown(known(set));
    this.status.flush();
    const names = [...set.pipelines.keys()];
    this.log.info({ pipelines: names }, 'pipeline configuration loaded');
    return names;
  }

  private buildLocal(): PipelineSet {
    return typeof this.local === 'string' ? loadPipelineConfig(this.local) : buildPipelines(this.local);
  }
}

function known(set: PipelineSet): { stages: string[]; pipelines: string[] } {
  return { stages: set.stageNames(), pipelines: [...set.pipelines.keys()] };
}
