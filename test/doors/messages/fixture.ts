import Anthropic from '@anthropic-ai/sdk';
import { useGatewayFixture, type GatewayFixture } from '../../helpers/gateway.js';

// What the Messages door's tests share: the gateway fixture with the official Anthropic SDK
// pointed at it, and user texts the response cache has never seen.

export interface MessagesDoorFixture {
  gw: GatewayFixture;
  /** Set by the `before` hook: read it inside tests. */
  client: Anthropic;
}

/** The gateway fixture of a describe block, and an SDK client for it (no retries: a test sees every error). */
export function useMessagesDoor(): MessagesDoorFixture {
  const door = { gw: useGatewayFixture() } as MessagesDoorFixture;
  before(() => {
    door.client = new Anthropic({ baseURL: door.gw.app.baseUrl, apiKey: door.gw.key, maxRetries: 0 });
  });
  return door;
}

let said = 0;
/** A user text that is new every time, so the response cache never answers it by accident. */
export function fresh(text: string): string {
  said += 1;
  return `${text} (${said})`;
}
