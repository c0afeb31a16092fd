/**
 * A small help centre with misses, for the impact and fixes tests and the fixes benchmark:
 * several articles share words ("reset", "account", "billing"), and some pairs are worded unlike
 * their article, so a draft's changes move ranks both ways.
 */
export const HELP: Record<string, string> = {
  "router.md":
    "Router reset. Hold the reset button on the back of the router for ten seconds until the lights blink amber.\n\n" +
    "Router lights. A steady green light means the router is online; a red light means no uplink from the modem.",
  "password.md":
    "Password reset. Use the forgot password link on the sign-in page; the reset email link works for one hour.\n\n" +
    "Two-factor codes. Codes come from the authenticator app; backup codes are on the security page.",
  "billing.md":
    "Billing periods. Invoices are issued on the first day of each billing period and can be downloaded as PDF.\n\n" +
    "Payment methods. Cards and bank transfers are accepted; the billing contact receives every receipt.",
  "refunds.md":
    "Refund policy. A full refund is available within 30 days of purchase; refunds reach the original payment method in 5 to 10 days.",
  "account.md":
    "Account deletion. Deleting an account removes its data after 30 days; an owner can restore the account before that.\n\n" +
    "Account owner. The account owner can transfer ownership from the members page.",
  "sla.md": "Support SLA. Premium customers get a first response from the support team within 4 business hours.",
  "shipping.md": "Shipping. Orders ship within two business days; tracking links arrive by email once the parcel leaves the warehouse.",
  "boilerplate.md":
    "Contact us. For help with your account, billing, router or password, contact the support team any time. We are happy to help.",
};

export const PAIRS: [string, string][] = [
  ["how do I factory reset my router", "router.md"],
  ["the router light is red", "router.md"],
  ["I forgot my password", "password.md"],
  ["where are my backup codes", "password.md"],
  ["download an invoice", "billing.md"],
  ["which payment methods do you take", "billing.md"],
  ["money back guarantee", "refunds.md"],
  ["how long until my refund arrives", "refunds.md"],
  ["can I undo closing my account", "account.md"],
  ["give someone else my workspace", "account.md"],
  ["how fast does support answer", "sla.md"],
  ["where is my parcel", "shipping.md"],
  ["wipe the modem back to defaults", "router.md"],
  ["reach a human", "sla.md"],
];

export const LOGGED = ["router light red", "refund arrives when", "talk to someone", "reset password email", "billing receipt"];
