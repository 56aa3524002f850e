import { defineModule } from '../../http/module.ts';
import { registerApiTokenRoutes } from './routes.ts';

/**
 * API tokens (issue 26; docs/api.md "API tokens"): the caller's own named tokens for automation.
 * Every route acts on the caller's own tokens, filtered by its admin id in SQL; the token path of
 * authentication is in `plugins/auth.ts`. Another admin's token id answers 404 (apitokens.test.ts).
 */
export const apiTokenModule = defineModule({
  name: 'apitokens',
  resources: ['apitokens'],
  register: registerApiTokenRoutes,
  isolationCases: {
    'apitokens.list': [{ note: "lists the caller's own tokens only: no foreign id to try" }],
    'apitokens.create': [{ note: "creates a token of the caller's own, with its password: no foreign id to try" }],
    'apitokens.revoke': [
      {
        note: "the caller's own tokens only, filtered by its admin id in SQL: another admin's token id answers 404 (apitokens.test.ts)",
      },
    ],
  },
  topics: [],
});
