/**
 * `stepforge/config`: the types of a project's `stepforge.config.ts` and `defineConfig`, which only
 * returns its argument (as in Vite, Kubb, HeyAPI and orval) so an editor checks and completes the
 * config while it is written. Nothing here runs at load time: the CLI validates the config it
 * reads (cli/config/load.ts), whatever file form it came in.
 */

/** One spec of the project and what the project changes about its service. */
export interface SpecConfig {
  /** The OpenAPI 3.0/3.1 document (YAML or JSON), relative to the config file. */
  file: string;
  /**
   * The service id: names the output folder, the tool steps (`<id>_…`) and the service in every
   * command. Default: the spec file's base name (`specs/library.yaml` → `library`), or the
   * spec's own `x-stepforge.id`. 2 to 31 lower-case letters and digits, starting with a letter.
   */
  id?: string;
  /**
   * Where calls go instead of the spec's first server (e.g. a staging address): the generated
   * client's default, and what `call` and `mcp` use unless a connection or `--base-url` says otherwise.
   */
  baseUrl?: string;
  /** The behavioural mock of this service (`stepforge mock`, `call --mock`, `mcp --mock`). */
  mock?: {
    /** Port `stepforge mock` listens on (default: the spec's `x-stepforge.mock.ports.mock`, else 4120 + its place). */
    port?: number;
  };
}

export interface StepforgeConfig {
  /** The project's specs: a file name, or a file with overrides. */
  specs: Array<string | SpecConfig>;
  /** Folder the generated code is written to, relative to the config file. Default: `src/stepforge`. */
  output?: string;
  /**
   * Package name of the output folder. With it `generate` also writes `<output>/package.json` and
   * `<output>/tsconfig.json` (as `generate --package` does), and the generated READMEs import from
   * `<package>/<service>`. Without it they import the output folder by its path.
   */
  package?: string;
}

/** Returns the config unchanged; its type is what makes the call worth writing. */
export function defineConfig(config: StepforgeConfig): StepforgeConfig {
  return config;
}
