// The path of the original retrieval endpoint, kept so existing clients work unchanged.
export { POST } from "@/app/api/agents/[id]/documents/search/route";
