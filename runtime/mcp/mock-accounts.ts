/**
 * `--mock`: every selected service answered by its behavioural mock, in this process on
 * 127.0.0.1, with the credentials its spec declares for the mock (`x-stepforge.mock.credentials`),
 * so anyone can try an agent on the services without an account. The calls still run through
 * the whole runtime (auth, limits, retries), only the address differs.
 */
import { registeredMock, startMock, type RunningMock } from "../mock/index.js";
import type { SharedState } from "../client/client.js";
import { baseUrlFields } from "../credentials/connections.js";
import type { Account } from "./accounts.js";
import type { ServiceCatalog } from "./catalog.js";

export interface MockAccounts {
  accounts: Array<[string, Account[]]>;
  mocks: RunningMock[];
  close(): Promise<void>;
}

export async function startMockAccounts(
  catalogs: readonly ServiceCatalog[],
  shared?: SharedState,
): Promise<MockAccounts> {
  const mocks: RunningMock[] = [];
  const accounts: Array<[string, Account[]]> = [];
  try {
    for (const catalog of catalogs) {
      // The mock section (credentials included) lives in the generated mock module, not in the descriptor.
      const definition = registeredMock(catalog.id);
      const credentials = definition?.mock.credentials ?? {};
      // A service without auth needs no credentials; one with auth needs the mock's.
      const open = definition?.descriptor.auth.kind === "none";
      if (!definition || (!open && Object.keys(credentials).length === 0))
        throw new Error(
          `${catalog.id} declares no mock credentials (x-stepforge.mock.credentials); --mock cannot run it`,
        );
      const descriptor = definition.descriptor;
      const mock = await startMock(definition);
      mocks.push(mock);
      // A connection field that holds the service's address (Marketo's endpoint) points at the mock.
      const fields: Record<string, string> = { ...credentials };
      for (const name of baseUrlFields(descriptor)) fields[name] ??= mock.url;
      accounts.push([
        catalog.id,
        [
          {
            name: "mock",
            context: { connection: { name: "mock", fields }, baseUrl: mock.url, ...(shared ? { shared } : {}) },
          },
        ],
      ]);
    }
  } catch (error) {
    await Promise.allSettled(mocks.map((m) => m.close()));
    throw error;
  }
  return { accounts, mocks, close: async () => void (await Promise.allSettled(mocks.map((m) => m.close()))) };
}
