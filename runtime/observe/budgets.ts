/**
 * The remaining-budget gauges (`stepforge.limit.remaining`, `stepforge.limit.remaining_cost`):
 * what each limit had left at its last admission, kept per budget (service, connection, limit) and
 * reported by observable gauges when the meter's reader collects. Per admission this is a map
 * update, not an SDK record (attribute hashing and storage per limit per call): recording a
 * synchronous gauge on every call cost a client call with metrics on about 1.2x in process.
 *
 * One set per meter, shared by every client measured through it, so a process with many clients
 * registers two callbacks, not two per client.
 */
import type * as OtelApi from "@opentelemetry/api";
import type { BudgetEvent } from "../hooks.js";
import { hashConnection } from "./otel.js";

/** Budgets kept per unit; past this (a process making up connection names) the map starts again. */
const MAX_BUDGETS = 10_000;

interface Budget {
  value: number;
  attributes: OtelApi.Attributes;
}

export class BudgetGauges {
  private readonly requests = new Map<string, Budget>();
  private readonly costs = new Map<string, Budget>();

  constructor(meter: OtelApi.Meter) {
    const remaining = meter.createObservableGauge("stepforge.limit.remaining", {
      unit: "{request}",
      description: "Requests a client-side limit still allowed at its last admission.",
    });
    const remainingCost = meter.createObservableGauge("stepforge.limit.remaining_cost", {
      unit: "{cost}",
      description: "What a header quota in the service's cost units still allowed at its last admission.",
    });
    remaining.addCallback((result) => {
      for (const budget of this.requests.values()) result.observe(budget.value, budget.attributes);
    });
    remainingCost.addCallback((result) => {
      for (const budget of this.costs.values()) result.observe(budget.value, budget.attributes);
    });
  }

  note(event: BudgetEvent): void {
    for (const reading of event.limits) {
      const budgets = reading.unit === "cost" ? this.costs : this.requests;
      // The limit id fixes the scope within a service; the raw name stays in this map, never a label.
      const key = `${event.service}\u0000${event.connection}\u0000${reading.limit}`;
      const known = budgets.get(key);
      if (known) {
        known.value = reading.remaining;
        continue;
      }
      if (budgets.size >= MAX_BUDGETS) budgets.clear();
      budgets.set(key, {
        value: reading.remaining,
        attributes: {
          "stepforge.service": event.service,
          "stepforge.limit": reading.limit,
          "stepforge.limit.scope": reading.per,
          "stepforge.connection.hash": hashConnection(event.service, event.connection),
        },
      });
    }
  }
}

const byMeter = new WeakMap<OtelApi.Meter, BudgetGauges>();

/** The budget gauges of `meter`, made on first use. */
export function budgetGaugesFor(meter: OtelApi.Meter): BudgetGauges {
  let gauges = byMeter.get(meter);
  if (!gauges) byMeter.set(meter, (gauges = new BudgetGauges(meter)));
  return gauges;
}
