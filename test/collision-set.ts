/**
 * A labeled set for the collision search (app/api/collisions.test.ts): articles, copies of some
 * (verbatim, reworded, with changed prices, dates, durations and setting names), and articles on
 * one shared topic that are not copies of each other. `expected` names the pairs each kind must find.
 */

export const BASE: Record<string, string> = {
  "refunds.md": `Refund policy. A full refund is available within 30 days of purchase for annual plans. Monthly plans are refunded for the unused part of the current month only.
To ask for a refund, open the billing page, choose the invoice and press Request refund. The request reaches the finance team, which answers within two working days.
Refunds go back to the original payment method. Card refunds take 5 to 10 days to show on a statement; bank transfers can take longer. A refund cancels the plan at once and the workspace turns read-only.`,
  "sla.md": `Support SLA. Premium customers get a first response from the support team within 4 business hours, around the clock on weekdays.
Business customers get a first response within 8 business hours. Free workspaces are answered by the community forum and by email when the queue allows.
An outage that stops a whole workspace is handled as urgent for every plan. Urgent tickets page the engineer on call, who posts updates on the status page every thirty minutes until it is resolved.`,
  "password.md": `Password reset. Use the forgot password link on the sign-in page and enter the email address of your account.
The reset email arrives within a few minutes; its link works once and expires after one hour. Check the spam folder when it does not arrive.
Administrators can send a reset link to any member from the members page. After a reset every other session of the account is signed out, and saved browser passwords must be updated by hand.`,
  "pricing.md": `Plans and prices. The Starter plan costs $12 per user per month and includes 10 GB of storage for each user.
The Team plan costs $29 per user per month, adds single sign-on and keeps the audit log for a year. The Enterprise plan is priced on request.
Annual billing saves two months on every plan. Extra storage is sold in blocks of 100 GB for $5 per month. Prices exclude sales tax, which is added at checkout where it applies.`,
  "shipping.md": `Shipping hardware. Routers and access points ship from our warehouse within 2 business days of the order.
Standard delivery takes 3 to 5 business days inside the country. Express delivery arrives the next business day when the order is placed before 2 pm.
Every parcel has a tracking number sent by email. A parcel that has not moved for 7 days is reported to the carrier, and a replacement ships at no cost when the carrier confirms it is lost.`,
  "maintenance.md": `Planned maintenance. The next database upgrade takes place on March 14, 2025 between 01:00 and 03:00 UTC.
During the window the app stays readable, but uploads and changes are paused. A banner announces it 7 days before and again on the day itself.
The previous upgrade on 2024-11-02 finished early. Customers on the Enterprise plan can ask for the window to be moved by writing to their account manager before March 1, 2025.`,
  "wifi-settings.md": `Guest wifi settings. Open the admin page, go to Wireless and then Advanced to find the guest network options.
Switch on Guest isolation so that visitors cannot reach the office devices. The max_clients setting limits how many visitors can join at once; keep it below the number of free addresses.
Save the page and restart the access point. The guest password printed on the card is replaced every month, and the new one shows on the dashboard.`,
};

/** Copies, each with how it differs. */
export const COPIES: Record<string, { of: string; text: string }> = {
  // Verbatim: the same text (a trailing line break: another file, the same words).
  "refunds-copy.md": { of: "refunds.md", text: BASE["refunds.md"] + "\n" },
  "sla-2023.md": { of: "sla.md", text: BASE["sla.md"] + "\n\n" },
  // Nearly verbatim: two words changed, no figure.
  "password-old.md": {
    of: "password.md",
    text: BASE["password.md"].replace("Check the spam folder", "Look in the junk folder"),
  },
  // Conflicting: prices, durations, dates, setting names.
  "pricing-2024.md": { of: "pricing.md", text: BASE["pricing.md"].replace("$12", "$15").replace("$29", "$35") },
  "shipping-eu.md": {
    of: "shipping.md",
    text: BASE["shipping.md"]
      .replace("within 2 business days", "within 4 business days")
      .replace("3 to 5 business days", "5 to 8 business days"),
  },
  "maintenance-update.md": {
    of: "maintenance.md",
    text: BASE["maintenance.md"].replace("March 14, 2025", "April 11, 2025").replace("before March 1, 2025", "before March 28, 2025"),
  },
  "wifi-settings-v2.md": {
    of: "wifi-settings.md",
    text: BASE["wifi-settings.md"].replace("then Advanced", "then Network").replace("The max_clients setting", "The client_limit setting"),
  },
};

/** Different articles on one topic: they share words, and two of them one paragraph, not their text. */
export const ROUTER: Record<string, string> = {
  "router-reset.md": `Resetting the router. Hold the reset button on the back of the router for ten seconds until the lights blink amber.
The router restarts with its factory settings: the admin password, the wifi name and the wifi password are the ones printed on the label.
After the reset, sign in to the admin page of the router again and set a new admin password before you connect other devices.`,
  "router-firmware.md": `Updating the router firmware. Sign in to the admin page of the router and open System, then Firmware.
The router checks for a new firmware version and shows its release notes. Press Update and keep the router powered on while the lights blink.
The update takes a few minutes and the router restarts by itself. Your wifi name, wifi password and admin password stay as they were.`,
  "router-ports.md": `Port forwarding on the router. Forwarding sends traffic that arrives on a port of the router to one device in the office.
On the admin page of the router open Network, then Port forwarding, and add a rule with the port, the protocol and the address of the device.
Give the device a fixed address first, or the rule points nowhere after the device gets a new one. Remove rules you no longer use.`,
  "router-guest.md": `A guest network on the router. Visitors get internet access without reaching the office network or its printers.
On the admin page of the router open Wireless, switch on the guest network and choose its wifi name and wifi password.
Share the guest wifi password with visitors, not the office one. The router keeps guest devices apart from each other as well.`,
  // Shares its last paragraph with the guest network article, word for word, and nothing else.
  "router-channels.md": `Choosing a wifi channel. Neighbouring networks on the same channel slow each other down, most of all in busy buildings.
On the admin page of the router open Wireless, then Channel, and pick Auto or one of the channels the scan shows as least used.
Share the guest wifi password with visitors, not the office one. The router keeps guest devices apart from each other as well.`,
  // Quotes the guest network article's first paragraph word for word, then says more of its own.
  "router-guest-faq.md": `A guest network on the router. Visitors get internet access without reaching the office network or its printers.
On the admin page of the router open Wireless, switch on the guest network and choose its wifi name and wifi password.
Questions visitors ask. A phone that joined the office network by mistake must forget it and join the guest one instead; the office password is not for visitors.
A guest who cannot print is on the right network: printers stay on the office side on purpose. Ask the front desk to print for them.
A laptop that shows no internet on the guest network usually needs its browser opened once to accept the terms page.`,
};

const pair = (x: string, y: string) => [x, y].sort().join(" + ");

export const EXPECTED = {
  duplicate: new Set([pair("refunds.md", "refunds-copy.md"), pair("sla.md", "sla-2023.md"), pair("password.md", "password-old.md")]),
  conflicting: new Set([
    pair("pricing.md", "pricing-2024.md"),
    pair("shipping.md", "shipping-eu.md"),
    pair("maintenance.md", "maintenance-update.md"),
    pair("wifi-settings.md", "wifi-settings-v2.md"),
  ]),
  competing: new Set([pair("router-reset.md", "router-firmware.md"), pair("password.md", "sla.md")]),
};

export { pair as pairName };

/** Precision and recall of found pairs against expected ones (1 when both are empty). */
export function precisionRecall(found: Set<string>, expected: Set<string>) {
  const hits = [...found].filter((p) => expected.has(p)).length;
  return { precision: found.size ? hits / found.size : 1, recall: expected.size ? hits / expected.size : 1, found: found.size, hits };
}
