/**
 * Questions a support agent's users ask, each in three wordings, by subject: the labeled set the
 * question-grouping threshold is measured on (`npm run bench:questions`). Wordings of one question
 * should share a group; different questions of the same subject should not.
 */
export const QUESTION_WORDINGS: Record<string, string[][]> = {
  password: [
    ["How do I reset my password?", "I forgot my password, how can I reset it?", "reset password"],
    ["How long is the password reset link valid?", "When does the reset email link expire?", "password reset link expired"],
    ["What are the password requirements?", "How long does my password need to be?", "password rules length"],
  ],
  sign_in: [
    ["How do I turn on two-factor authentication?", "Can I enable 2FA on my account?", "enable two factor authentication"],
    [
      "I lost my phone with the authenticator app, how do I sign in?",
      "Lost my 2FA device, how can I log in?",
      "lost authenticator phone sign in",
    ],
    ["Why is my account locked?", "My account got locked after failed logins", "account locked out"],
  ],
  invoices: [
    ["When are invoices issued?", "On which day do I get my invoice?", "invoice date billing period"],
    ["Where can I download my invoices as PDF?", "How do I get a PDF of my invoice?", "download invoice pdf"],
    [
      "Can I change the billing address on an invoice?",
      "How do I update the address shown on my invoices?",
      "invoice billing address change",
    ],
  ],
  refunds: [
    ["How long does a refund take?", "When will I get my refund?", "refund processing time"],
    ["Can I get a refund after 30 days?", "Is a refund possible after the 30 day window?", "refund after 30 days"],
    ["Do you refund annual plans pro rata?", "Is a yearly subscription refunded partially if I cancel?", "prorated refund annual plan"],
  ],
  plans: [
    ["What does the Business plan cost?", "How much is the Business plan per month?", "business plan price"],
    ["How do I upgrade my plan?", "Can I move to a higher plan?", "upgrade subscription plan"],
    ["Is there a free trial?", "Can I try the product for free first?", "free trial available"],
  ],
  support: [
    ["How fast does support answer premium customers?", "What is the first response time for Premium?", "premium support response time"],
    ["Is support available on weekends?", "Can I reach support on Saturday or Sunday?", "weekend support hours"],
    ["How do I contact support by phone?", "Is there a phone number for support?", "support phone number"],
  ],
  export: [
    ["How do I export all my data?", "Can I download a full export of my data?", "export account data"],
    ["Which formats can I export to?", "Is the export available as CSV or JSON?", "export file formats"],
    ["How long is an export link kept?", "When does the download link of my export expire?", "export download link expiry"],
  ],
  integrations: [
    ["How do I connect Slack?", "Can I integrate with Slack?", "slack integration setup"],
    ["Is there a webhook when a ticket changes?", "Can you notify my server with a webhook on ticket updates?", "ticket update webhook"],
    ["Where do I find my API key?", "How do I create an API token?", "api key location"],
  ],
  account: [
    ["How do I delete my account?", "I want to close my account permanently", "delete account"],
    ["Can I change the email address of my account?", "How do I update my login email?", "change account email"],
    ["How do I add a teammate to my workspace?", "Can I invite a colleague to my account?", "invite team member"],
  ],
};
