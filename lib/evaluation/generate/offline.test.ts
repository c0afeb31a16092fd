import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { htmlToText } from "@/lib/extract/html.mjs";
import { questionKey } from "@/lib/core/normalize";
import { candidateQuestions, MAX_TEXT_CHARS, offlineQuestions } from "./offline";
import { gerundBase, headingQuestion, sentenceQuestion } from "./english";

const demo = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "../../../demo", name), "utf8");
const queries = (text: string, n = 20) => offlineQuestions(text, n).map((q) => q.query);

describe("offline questions from the demo articles", () => {
  it("turns the sections' headings into questions, the title's last, then first sentences", () => {
    expect(offlineQuestions(demo("refund-policy.md"), 8)).toEqual([
      { kind: "heading", query: "What is the full refund within 30 days?" },
      { kind: "heading", query: "What happens after 30 days?" },
      { kind: "heading", query: "How do I request a refund?" },
      { kind: "heading", query: "When does the money arrive?" },
      { kind: "heading", query: "What are chargebacks?" },
      { kind: "heading", query: "What are refunds?" },
      { kind: "sentence", query: "Is Relay sold as monthly and annual subscriptions?" },
      { kind: "sentence", query: "Can I ask for a full refund within 30 days of purchase if the product did not work for you?" },
    ]);
  });

  it("gives at most n questions, each once, none too short or too long, for every demo article", () => {
    const files = fs.readdirSync(path.join(import.meta.dirname, "../../../demo")).filter((f) => f.endsWith(".md"));
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const f of files) {
      const all = queries(demo(f));
      expect(all.length, f).toBeGreaterThanOrEqual(8);
      expect(queries(demo(f), 5), f).toEqual(all.slice(0, 5));
      expect(new Set(all.map(questionKey)).size, f).toBe(all.length);
      for (const q of all) {
        expect(q, f).toMatch(/^\p{Lu}.*\?$/u);
        expect(questionKey(q).split(" ").length, q).toBeGreaterThanOrEqual(3);
        expect(q.length, q).toBeLessThanOrEqual(200);
      }
    }
    expect(queries(demo("data-export.md"))).toEqual(
      expect.arrayContaining([
        "How do I start an export?",
        "What does the archive contain?",
        "How do I export my data?",
        "Do links expire after seven days?",
      ]),
    );
    expect(queries(demo("support-sla.md"))).toEqual(
      expect.arrayContaining(["Where do I open a ticket?", "What are the business hours?", "Does every plan include email support?"]),
    );
    expect(queries(demo("account-access.md"))).toContain("What if I forgot my password?");
  });

  it("is deterministic", () => {
    expect(candidateQuestions(demo("integrations.md"))).toEqual(candidateQuestions(demo("integrations.md")));
  });

  it("answers nothing for n = 0 or a text without structure", () => {
    expect(offlineQuestions(demo("refund-policy.md"), 0)).toEqual([]);
    expect(offlineQuestions("ok", 5)).toEqual([]);
  });
});

describe("FAQ-style lines", () => {
  const faq = [
    "# Frequently asked questions",
    "",
    "## Orders",
    "",
    "**How do I cancel an order?**",
    "Open the order and choose Cancel. Not sure? Ask us: can we help you?",
    "",
    "- Can I pay by invoice?",
    "- Why?",
    "",
    "Q: Delivery to islands and overseas territories",
    "A: We deliver there in 10 days.",
    "",
    "Question 4: Do you ship to Norway?",
    "Yes.",
    "",
    "### How do I cancel an order?",
    "",
    "## Exporting your data",
    "",
    "How do I export my data?",
    "",
    `- ${"Is this a question that goes on and on ".repeat(8)}forever?`,
  ].join("\n");

  it("come first, as written, each once; prose that asks in passing, one-word and overlong questions are left out", () => {
    expect(offlineQuestions(faq, 20)).toEqual([
      { kind: "faq", query: "How do I cancel an order?" },
      { kind: "faq", query: "Can I pay by invoice?" },
      { kind: "faq", query: "Delivery to islands and overseas territories?" },
      { kind: "faq", query: "Do you ship to Norway?" },
      { kind: "faq", query: "How do I export my data?" },
      // "Exporting your data" asks the same as the line above it; "Frequently asked questions" is no topic.
      { kind: "heading", query: "What are orders?" },
    ]);
  });

  it("are read in the first MAX_TEXT_CHARS characters only", () => {
    const long = `${"lorem ipsum dolor sit amet ".repeat(Math.ceil(MAX_TEXT_CHARS / 27))}\n\nWhere is the question at the end?`;
    expect(queries(long)).toEqual([]);
    expect(queries("Where is the question at the end?")).toEqual(["Where is the question at the end?"]);
  });
});

describe("text extracted from other formats", () => {
  it("reads the headings HTML extraction writes as # lines", () => {
    const html =
      "<html><body><nav>Home | Docs</nav><main><h1>Shipping</h1><p>We ship to 40 countries from our warehouse in Lyon.</p>" +
      "<h2>Delivery times</h2><p>Orders placed before noon leave the same day.</p><h2>Tracking a parcel</h2>" +
      "<p>Every parcel has a tracking number, sent by email when it leaves.</p><h3>Can I change the delivery address?</h3><p>Until it leaves.</p></main></body></html>";
    expect(queries(htmlToText(html))).toEqual([
      "Can I change the delivery address?",
      "What are the delivery times?",
      "How do I track a parcel?",
      "What is Shipping?",
      "Do you ship to 40 countries from your warehouse in Lyon?",
      "Does every parcel have a tracking number, sent by email when it leaves?",
    ]);
  });

  it("takes a short line alone in its paragraph for a heading in plain text (PDF, DOCX)", () => {
    const pdf = [
      "Employee handbook",
      "",
      "Holidays",
      "",
      "Every employee has 25 days of paid leave per year. Unused days can be carried over until March.",
      "",
      "Working from home",
      "",
      "Employees may work from home two days a week, agreed with their manager.",
      "",
      "Expenses",
      "Travel is booked through the travel desk.",
    ].join("\n");
    expect(queries(pdf)).toEqual([
      "What are Holidays?",
      "How do I work from home?",
      "What is the employee handbook?",
      "Does every employee have 25 days of paid leave per year?",
      "May employees work from home two days a week, agreed with their manager?",
    ]);
  });
});

describe("English rules", () => {
  it("turns headings into questions", () => {
    const vocab = { names: new Set(["Relay"]), lower: new Set(["refund", "policy", "webhook"]) };
    expect(headingQuestion("Refund policy", vocab)).toBe("What is the refund policy?");
    expect(headingQuestion("Payment methods", vocab)).toBe("What are the payment methods?");
    expect(headingQuestion("Webhooks", vocab)).toBe("What are webhooks?");
    expect(headingQuestion("Relay Premium", vocab)).toBe("What is Relay Premium?");
    expect(headingQuestion("How to reset your password", vocab)).toBe("How do I reset my password?");
    expect(headingQuestion("When invoices are issued", vocab)).toBe("When are invoices issued?");
    expect(headingQuestion("Changing your plan", vocab)).toBe("How do I change my plan?");
    expect(headingQuestion("Billing and invoices", vocab)).toBe("What are the billing and invoices?");
    expect(headingQuestion("Is there a **free** plan?", vocab)).toBe("Is there a free plan?");
    expect(headingQuestion("Overview", vocab)).toBeNull();
    expect(headingQuestion("API", vocab)).toBeNull();
  });

  it("turns a section's first sentence into the yes/no question it answers, or nothing", () => {
    const vocab = { names: new Set(["Relay"]), lower: new Set(["exports", "links"]) };
    expect(sentenceQuestion("You can export every invoice as a PDF.", vocab)).toBe("Can I export every invoice as a PDF?");
    expect(sentenceQuestion("Exports are in JSON; attachments keep their formats.", vocab)).toBe("Are exports in JSON?");
    expect(sentenceQuestion("Relay connects to Slack, and its API is open.", vocab)).toBe("Does Relay connect to Slack?");
    expect(sentenceQuestion("Links expire after seven days.", vocab)).toBe("Do links expire after seven days?");
    expect(sentenceQuestion("We accept credit cards (Visa and Mastercard) on every plan.", vocab)).toBe(
      "Do you accept credit cards on every plan?",
    );
    expect(sentenceQuestion("After 30 days we refund unused months.", vocab)).toBeNull();
    expect(sentenceQuestion("Open the order and choose Cancel.", vocab)).toBeNull();
    expect(sentenceQuestion("It works.", vocab)).toBeNull();
  });

  it("finds the verb of an -ing heading", () => {
    const cases = {
      changing: "change",
      setting: "set",
      adding: "add",
      exporting: "export",
      creating: "create",
      using: "use",
      opening: "open",
      managing: "manage",
      syncing: "sync",
      scheduling: "schedule",
      logging: "log",
      editing: "edit",
    };
    expect(Object.fromEntries(Object.keys(cases).map((w) => [w, gerundBase(w)]))).toEqual(cases);
  });
});
