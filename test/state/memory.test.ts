import { MemoryStateStore } from "../../runtime/state/index.js";
import { describeStateStore } from "./conformance.js";

describeStateStore("memory", async (clock) => new MemoryStateStore(clock));
