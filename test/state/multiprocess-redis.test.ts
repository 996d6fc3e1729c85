import { Redis } from "ioredis";
import { expect } from "vitest";
import { startRedis, type RunningRedis } from "../helpers/redis.js";
import { describeMultiProcess } from "./multiprocess.js";

let redis: RunningRedis;
describeMultiProcess({
  name: "Redis (STEPFORGE_REDIS_URL)",
  env: () => ({ STEPFORGE_REDIS_URL: redis.url }),
  async setUp() {
    redis = await startRedis();
  },
  async tearDown() {
    await redis?.stop();
  },
  async afterChecks(secrets) {
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys("*");
      expect(keys.some((k) => k.startsWith("stepforge:r:token:"))).toBe(true);
      for (const secret of secrets.filter(Boolean)) for (const key of keys) expect(key).not.toContain(secret);
    } finally {
      client.disconnect();
    }
  },
});
