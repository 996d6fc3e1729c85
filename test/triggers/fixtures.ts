/** Realistic Trello deliveries ({action, model, webhook}) for trigger tests. */
let counter = 0;
export const BOARD = "60d5ecb74e2a1b3c4d5e6f01";
export const OTHER_BOARD = "60d5ecb74e2a1b3c4d5e6f99";
export const LIST_A = "60d5ecb74e2a1b3c4d5e6f71";
export const LIST_B = "60d5ecb74e2a1b3c4d5e6f72";
export const CARD = "60d5ecb74e2a1b3c4d5e6f81";

export function delivery(
  type: string,
  data: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  board = BOARD,
) {
  counter++;
  const id = `6100000000000000000${String(counter).padStart(5, "0")}`;
  return {
    action: {
      id,
      idMemberCreator: "5a0000000000000000000001",
      type,
      date: "2026-11-21T09:00:00.000Z",
      data: { board: { id: board, name: "Roadmap", shortLink: "AbCd1234" }, ...data },
      memberCreator: { id: "5a0000000000000000000001", fullName: "Ada Lovelace", username: "ada" },
      ...extra,
    },
    model: { id: board, name: "Roadmap" },
    webhook: {
      id: "6200000000000000000000aa",
      idModel: board,
      callbackURL: "https://hooks.example.com/trello",
      active: true,
    },
  };
}

export const card = { id: CARD, name: "Write the report", idShort: 12, shortLink: "XyZ12345" };
