import { DEFAULT_WEBHOOK_DELIVERY, deliverWebhook } from '../src/webhooks/delivery.js';
import { defineTask, payloadParser } from '../src/jobs/task.js';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const schema = {
  type: 'object',
  required: ['delivery_id'],
  additionalProperties: false,
  properties: { delivery_id: { type: 'string', pattern: UUID } },
};

// One attempt of one webhook delivery (queued with its event, in the transaction of the change
// that caused it); a failed attempt queues the next one itself, on the schedule of the options.
export default defineTask({
  name: 'webhooks__deliver',
  parse: payloadParser<{ delivery_id: string }>('webhooks__deliver', schema),
  async run({ delivery_id }, { db, log, webhooks }) {
    await deliverWebhook({ db, log }, delivery_id, { ...DEFAULT_WEBHOOK_DELIVERY, ...webhooks });
  },
});
