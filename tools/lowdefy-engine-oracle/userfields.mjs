// Lowdefy user oracle: maps auth.userFields with Lowdefy's own auth callbacks
// (@lowdefy/api 4.0.0-rc.11 createJWTCallback and createSessionCallback, JWT session
// strategy, as without an adapter), to check internal/lowdefy/server.ApplyUserFields.
//
// Usage: node userfields.mjs < CASES.json
//
// CASES.json is a JSON array of {userFields, account, profile, user}; for each case one line
// is printed: the `_user` a page would read (session.user) as JSON, after the sign-in's JWT
// callback and the session callback, with the token passed through JSON as NextAuth stores it.
import fs from 'node:fs';

const { default: createJWTCallback } = await import('@lowdefy/api/routes/auth/callbacks/createJWTCallback.js');
const { default: createSessionCallback } = await import('@lowdefy/api/routes/auth/callbacks/createSessionCallback.js');
const logger = { debug() {}, info() {}, warn() {}, error() {} };
const cases = JSON.parse(fs.readFileSync(0, 'utf8'));
for (const c of cases) {
  const authConfig = { callbacks: [], userFields: c.userFields };
  const jwtCallback = createJWTCallback({ authConfig, logger, plugins: { callbacks: {} } });
  const sessionCallback = createSessionCallback({ authConfig, plugins: { callbacks: {} } });
  const { account, profile, user } = c;
  // NextAuth's first token from the signed-in user, then Lowdefy's JWT callback.
  let token = { name: user?.name, email: user?.email, picture: user?.image, sub: user?.id };
  token = JSON.parse(JSON.stringify(await jwtCallback({ token, user, account, profile, isNewUser: false })));
  // NextAuth's session from the token, then Lowdefy's session callback.
  const session = await sessionCallback({ session: { user: { name: token.name, email: token.email, image: token.picture }, expires: 'x' }, token });
  process.stdout.write(JSON.stringify(session.user) + '\n');
}
