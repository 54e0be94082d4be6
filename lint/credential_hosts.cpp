#include "lint/credential_hosts.h"

#include <algorithm>
#include <array>

namespace toolcage::lint {
namespace {

// Hosts are each service's documented API endpoint; a `**.` pattern where the service spreads
// its API over subdomains. Entries with no hosts are secrets the relay never carries (local
// passwords, webhook secrets that are received, not sent).
constexpr std::array kTable = std::to_array<CredentialVariable>({
    {"ANTHROPIC_API_KEY", "api.anthropic.com", "ANTHROPIC_BASE_URL",
     "Anthropic's API key, sent as x-api-key to the Messages API"},
    {"AWS_ACCESS_KEY_ID", "**.amazonaws.com", "",
     "AWS access key id: every AWS service API signs with it (SigV4), all under amazonaws.com"},
    {"AWS_SECRET_ACCESS_KEY", "**.amazonaws.com", "", "AWS secret key, the other half of SigV4 signing"},
    {"AWS_SESSION_TOKEN", "**.amazonaws.com", "", "AWS temporary session token, sent with SigV4 requests"},
    {"AZURE_OPENAI_API_KEY", "**.openai.azure.com", "AZURE_OPENAI_ENDPOINT",
     "Azure OpenAI key, sent to the resource's <name>.openai.azure.com endpoint"},
    {"BROWSERBASE_API_KEY", "api.browserbase.com", "", "Browserbase cloud browser API key"},
    {"CLAUDE_API_KEY", "api.anthropic.com", "", "Anthropic API key under Claude Code's alternate name"},
    {"CLOUDFLARE_API_TOKEN", "api.cloudflare.com", "", "Cloudflare API token"},
    {"DEEPSEEK_API_KEY", "api.deepseek.com", "DEEPSEEK_BASE_URL", "DeepSeek model API key"},
    {"DISCORD_BOT_TOKEN", "discord.com **.discord.com gateway.discord.gg", "",
     "Discord bot token: REST API on discord.com, the gateway websocket on gateway.discord.gg"},
    {"DISCORD_TOKEN", "discord.com **.discord.com gateway.discord.gg", "",
     "Discord bot token under its other common name"},
    {"EMAIL_PASSWORD", "", "", "mail account password, sent over IMAP/SMTP, never through the relay's HTTPS"},
    {"EXA_API_KEY", "api.exa.ai", "", "Exa web search API key"},
    {"FAL_KEY", "fal.run **.fal.run", "", "fal.ai image generation key, sent to fal.run and its queue hosts"},
    {"FIRECRAWL_API_KEY", "api.firecrawl.dev", "", "Firecrawl web crawling API key"},
    {"FIREWORKS_API_KEY", "api.fireworks.ai", "", "Fireworks AI model API key"},
    {"GEMINI_API_KEY", "generativelanguage.googleapis.com", "GEMINI_BASE_URL",
     "Google AI Studio (Gemini) key, sent to the Generative Language API"},
    {"GH_TOKEN", "api.github.com github.com", "",
     "GitHub token (gh's name): REST/GraphQL on api.github.com, git over HTTPS on github.com"},
    {"GITHUB_TOKEN", "api.github.com github.com", "",
     "GitHub token: REST/GraphQL on api.github.com, git over HTTPS on github.com"},
    {"GITLAB_TOKEN", "gitlab.com", "", "GitLab personal access token (API and git on gitlab.com)"},
    {"GLM_API_KEY", "api.z.ai open.bigmodel.cn", "GLM_BASE_URL", "z.ai / ZhipuAI GLM model API key"},
    {"GOOGLE_API_KEY", "generativelanguage.googleapis.com", "GEMINI_BASE_URL",
     "Google AI Studio key (Hermes reads it for Gemini)"},
    {"GROQ_API_KEY", "api.groq.com", "GROQ_BASE_URL", "Groq API key (models, Whisper transcription)"},
    {"HF_TOKEN", "huggingface.co **.huggingface.co", "",
     "Hugging Face token: hub downloads and the inference router (router.huggingface.co)"},
    {"HONCHO_API_KEY", "api.honcho.dev", "", "Honcho user-modelling API key"},
    {"HUGGING_FACE_HUB_TOKEN", "huggingface.co **.huggingface.co", "",
     "Hugging Face token under huggingface_hub's older name"},
    {"KIMI_API_KEY", "api.kimi.com api.moonshot.ai api.moonshot.cn", "KIMI_BASE_URL",
     "Kimi / Moonshot model API key"},
    {"MINIMAX_API_KEY", "api.minimax.io", "MINIMAX_BASE_URL", "MiniMax model API key (global endpoint)"},
    {"MISTRAL_API_KEY", "api.mistral.ai", "", "Mistral model API key"},
    {"NOVITA_API_KEY", "api.novita.ai", "NOVITA_BASE_URL", "NovitaAI model API key"},
    {"NPM_TOKEN", "registry.npmjs.org", "", "npm registry token (publishing, private packages)"},
    {"NVIDIA_API_KEY", "integrate.api.nvidia.com", "", "NVIDIA API catalog key (NIM inference endpoints)"},
    {"OLLAMA_API_KEY", "ollama.com", "OLLAMA_BASE_URL", "Ollama Cloud API key"},
    {"OPENAI_API_KEY", "api.openai.com", "OPENAI_BASE_URL", "OpenAI API key"},
    {"OPENROUTER_API_KEY", "openrouter.ai", "OPENROUTER_BASE_URL",
     "OpenRouter model router key: every model call of the agent goes there"},
    {"PARALLEL_API_KEY", "api.parallel.ai", "", "Parallel web search API key"},
    {"SLACK_APP_TOKEN", "slack.com **.slack.com", "",
     "Slack app-level token (Socket Mode websocket on wss-*.slack.com)"},
    {"SLACK_BOT_TOKEN", "slack.com **.slack.com", "", "Slack bot token: the Web API on slack.com/api"},
    {"SUDO_PASSWORD", "", "", "a local password piped to sudo; no host accepts it"},
    {"TAVILY_API_KEY", "api.tavily.com", "", "Tavily web search API key"},
    {"TELEGRAM_BOT_TOKEN", "api.telegram.org", "",
     "Telegram bot token, carried in the Bot API's URL path on api.telegram.org"},
    {"TELEGRAM_WEBHOOK_SECRET", "", "", "checked on Telegram's incoming webhook calls, never sent out"},
    {"TOGETHER_API_KEY", "api.together.xyz", "", "Together AI model API key"},
    {"VOICE_TOOLS_OPENAI_KEY", "api.openai.com", "STT_OPENAI_BASE_URL",
     "OpenAI key Hermes keeps apart for Whisper and TTS"},
    {"XAI_API_KEY", "api.x.ai", "", "xAI (Grok) model API key"},
    {"XIAOMI_API_KEY", "api.xiaomimimo.com", "XIAOMI_BASE_URL", "Xiaomi MiMo model API key"},
});

constexpr bool sorted_and_unique() {
    for (std::size_t i = 1; i < kTable.size(); ++i)
        if (!(kTable[i - 1].name < kTable[i].name)) return false;
    return true;
}
static_assert(sorted_and_unique(), "kTable must be sorted by name, each name once");

}  // namespace

std::span<const CredentialVariable> credential_variables() { return kTable; }

const CredentialVariable* find_credential_variable(std::string_view name) {
    auto it = std::lower_bound(kTable.begin(), kTable.end(), name,
                               [](const CredentialVariable& v, std::string_view n) { return v.name < n; });
    return it != kTable.end() && it->name == name ? &*it : nullptr;
}

bool looks_like_credential(std::string_view name) {
    for (std::string_view suffix : {"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY",
                                    "_PASSWORD", "_ACCESS_KEY", "_PRIVATE_KEY", "_KEY"})
        if (name.ends_with(suffix)) return true;
    return false;
}

}  // namespace toolcage::lint
