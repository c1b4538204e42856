-- Every secret a rotation retires keeps signing for 24 h, beside the newer ones: a second rotation
-- within the day used to cut off the first secret, which a receiver may still hold. Each retired
-- secret is {secret, until}; previous_secret_until stays as the last rotation's, which the
-- rotation's answer shows.
alter table webhook_endpoints add column retired_secrets jsonb not null default '[]';
update webhook_endpoints
   set retired_secrets = jsonb_build_array(jsonb_build_object('secret', previous_secret, 'until', previous_secret_until))
 where previous_secret is not null and previous_secret_until > now();
alter table webhook_endpoints drop column previous_secret;
