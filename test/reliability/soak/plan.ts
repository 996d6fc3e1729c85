/** A seeded plan of tool-step calls per service: reads, creates with a unique key, updates, missing ids. */

import { prng } from "../../../runtime/mock/faults.js";
import { BOARD, CARD, LABEL, LIST } from "../../mock/helpers.js";
import { NEIGHBOURS, type Service } from "./settings.js";

export function neighbourCalls(service: Service): PlannedCall[] {
  const n = NEIGHBOURS[service];
  return Array.from({ length: n.count }, (_, i) => ({
    seq: 100_000 + i,
    service,
    tool: n.tool,
    input: n.input,
    neighbour: true,
  }));
}

export interface PlannedCall {
  seq: number;
  service: Service;
  tool: string;
  input: Record<string, unknown>;
  /** For a create: the resource and the unique key it carries. */
  creates?: { resource: string; key: string };
  /** A read of an id that does not exist (a NotFoundError is the right answer). */
  missing?: boolean;
  /** Sent by the second integration (`NEIGHBOURS`). */
  neighbour?: boolean;
}

/** One kind of call; `tag` (`<service>-<seq>`) makes a create's key unique. */
type Pick = (tag: string) => Omit<PlannedCall, "seq" | "service">;

const MISSING_TRELLO = "0000000000000000000000ff";

const GENERATORS: Record<Service, Array<[number, Pick]>> = {
  trello: [
    [
      15,
      (tag) => ({
        tool: "trello_create_card",
        input: { idList: LIST, name: `soak card ${tag}`, pos: "bottom" },
        creates: { resource: "card", key: `soak card ${tag}` },
      }),
    ],
    [
      8,
      (tag) => ({
        tool: "trello_add_comment_to_card",
        input: { id: CARD, text: `soak comment ${tag}` },
        creates: { resource: "action", key: `soak comment ${tag}` },
      }),
    ],
    [10, (tag) => ({ tool: "trello_update_card", input: { id: CARD, desc: `updated by ${tag}` } })],
    [4, () => ({ tool: "trello_add_label_to_card", input: { id: CARD, value: LABEL } })],
    [18, () => ({ tool: "trello_get_card", input: { id: CARD } })],
    [8, () => ({ tool: "trello_get_board", input: { id: BOARD } })],
    [8, () => ({ tool: "trello_get_board_lists", input: { id: BOARD } })],
    [6, () => ({ tool: "trello_get_list", input: { id: LIST } })],
    [6, () => ({ tool: "trello_get_board_labels", input: { id: BOARD } })],
    [5, () => ({ tool: "trello_get_boards", input: { filter: "open" } })],
    [4, () => ({ tool: "trello_get_card", input: { id: MISSING_TRELLO }, missing: true })],
    [8, () => ({ tool: "trello_api_call", input: { method: "GET", endpoint: `/1/cards/${CARD}` } })],
  ],
  marketo: [
    [
      16,
      (tag) => ({
        tool: "marketo_sync_leads",
        input: {
          action: "createOnly",
          input: [{ email: `soak.${tag}@example.com`, firstName: "Soak", lastName: tag }],
        },
        creates: { resource: "lead", key: `soak.${tag}@example.com` },
      }),
    ],
    [8, () => ({ tool: "marketo_add_leads_to_list", input: { listId: 1082, input: [{ id: 318581 }] } })],
    [
      16,
      () => ({
        tool: "marketo_get_leads",
        input: { filterType: "email", filterValues: ["amy.nguyen@example.com", "raj.patel@example.com"] },
      }),
    ],
    [12, () => ({ tool: "marketo_get_lists", input: {} })],
    [10, () => ({ tool: "marketo_get_campaigns", input: {} })],
    [10, () => ({ tool: "marketo_get_campaign", input: { id: 1004 } })],
    [8, () => ({ tool: "marketo_check_list_membership", input: { listId: 1082, id: [318581, 318602] } })],
    [6, () => ({ tool: "marketo_get_activity_types", input: {} })],
    [4, () => ({ tool: "marketo_get_campaign", input: { id: 999_999 }, missing: true })],
    [8, () => ({ tool: "marketo_api_call", input: { method: "GET", endpoint: "/rest/v1/lists.json" } })],
  ],
  worldnews: [
    [25, () => ({ tool: "worldnews_search_news", input: { text: "electric vehicles", language: "en", number: 5 } })],
    [15, () => ({ tool: "worldnews_top_news", input: { source_country: "us", language: "en" } })],
    [20, () => ({ tool: "worldnews_retrieve_news", input: { ids: "261548632" } })],
    [10, () => ({ tool: "worldnews_search_news_sources", input: { name: "reuters" } })],
    [10, () => ({ tool: "worldnews_get_geo_coordinates", input: { location: "Tokyo, Japan" } })],
    [
      10,
      () => ({
        tool: "worldnews_api_call",
        input: { method: "GET", endpoint: "/search-news", params: { text: "tesla", number: 3 } },
      }),
    ],
  ],
  contentsnare: [
    [
      12,
      (tag) => ({
        tool: "contentsnare_create_client",
        input: { name: `Soak Client ${tag}`, email: `soak.${tag}@example.com` },
        creates: { resource: "client", key: `soak.${tag}@example.com` },
      }),
    ],
    [
      8,
      (tag) => ({
        tool: "contentsnare_create_request",
        input: {
          name: `soak request ${tag}`,
          client_email: "dana.whitfield@harbourlane.co",
          request_template_id: "rtp_5Nw2QxR8",
        },
        creates: { resource: "request", key: `soak request ${tag}` },
      }),
    ],
    [
      10,
      (tag) => ({
        tool: "contentsnare_update_request",
        input: { id: "req_3Hk9sPq1", instruction_text: `updated by ${tag}` },
      }),
    ],
    [14, () => ({ tool: "contentsnare_get_client", input: { id: "acc_8fJ2kL0q" } })],
    [12, () => ({ tool: "contentsnare_list_clients", input: { limit: 20 } })],
    [12, () => ({ tool: "contentsnare_get_request", input: { id: "req_3Hk9sPq1" } })],
    [8, () => ({ tool: "contentsnare_list_requests", input: { limit: 10 } })],
    [6, () => ({ tool: "contentsnare_list_folders", input: {} })],
    [6, () => ({ tool: "contentsnare_get_me", input: {} })],
    [4, () => ({ tool: "contentsnare_get_client", input: { id: "acc_doesNotExist" }, missing: true })],
    [
      8,
      () => ({
        tool: "contentsnare_api_call",
        input: { method: "GET", endpoint: "/partner_api/v1/request_templates" },
      }),
    ],
  ],
};

/** `count` calls for one service, drawn by weight from a seeded sequence; creates get the keys `<service>-<seq>`. */
export function planCalls(service: Service, count: number, seed: number): PlannedCall[] {
  const random = prng(seed);
  const table = GENERATORS[service];
  const total = table.reduce((n, [w]) => n + w, 0);
  const calls: PlannedCall[] = [];
  for (let seq = 0; seq < count; seq++) {
    let r = random() * total;
    let pick = table[table.length - 1]![1];
    for (const [w, p] of table) {
      if (r < w) {
        pick = p;
        break;
      }
      r -= w;
    }
    calls.push({ seq, service, ...pick(`${service}-${seq}`) });
  }
  return calls;
}
