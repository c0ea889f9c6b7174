#include "lock_impls/params.hpp"

#include "lock_impls/port/assert.hpp"

namespace redlock_sim {

ParamSpec ms_param(std::string name, Duration fallback, std::string help, int64_t min) {
  return ParamSpec{.name = std::move(name),
                   .type = ParamType::integer,
                   .unit = "ms",
                   .default_value = ParamValue(fallback.ms_floor()),
                   .min = min,
                   .max = param_ms_max,
                   .choices = {},
                   .help = std::move(help)};
}

ParamSpec integer_param(std::string name, std::string unit, int64_t fallback, int64_t min,
                        int64_t max, std::string help) {
  return ParamSpec{.name = std::move(name),
                   .type = ParamType::integer,
                   .unit = std::move(unit),
                   .default_value = ParamValue(fallback),
                   .min = min,
                   .max = max,
                   .choices = {},
                   .help = std::move(help)};
}

ParamSpec count_param(std::string name, std::string unit, std::optional<int64_t> fallback,
                      std::string help) {
  return ParamSpec{.name = std::move(name),
                   .type = ParamType::count,
                   .unit = std::move(unit),
                   .default_value = fallback ? std::optional<ParamValue>(*fallback) : std::nullopt,
                   .min = 0,
                   .max = 1'000'000,
                   .choices = {},
                   .help = std::move(help)};
}

ParamSpec flag_param(std::string name, bool fallback, std::string help) {
  return ParamSpec{.name = std::move(name),
                   .type = ParamType::boolean,
                   .unit = {},
                   .default_value = ParamValue(fallback),
                   .min = 0,
                   .max = 0,
                   .choices = {},
                   .help = std::move(help)};
}

ParamSpec choice_param(std::string name, std::vector<std::string> choices, std::size_t fallback,
                       std::string help) {
  SIM_ASSERT_LT(fallback, choices.size());
  ParamValue chosen = choices[fallback];
  return ParamSpec{.name = std::move(name),
                   .type = ParamType::choice,
                   .unit = {},
                   .default_value = std::move(chosen),
                   .min = 0,
                   .max = 0,
                   .choices = std::move(choices),
                   .help = std::move(help)};
}

ParamSpec derived(ParamSpec spec) {
  spec.default_value.reset();
  return spec;
}

const ParamSpec* find_param(const ParamTable& table, std::string_view name) {
  for (const ParamSpec& spec : table) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string param_type_text(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::integer:
      return "int";
    case ParamType::count:
      return "uint";
    case ParamType::boolean:
      return "bool";
    case ParamType::choice:
      break;
  }
  std::string text;
  for (const std::string& c : spec.choices)
    text += (text.empty() ? "" : " | ") + c;
  return text;
}

namespace {

// What the value is, as an error message shows it: strings quoted as the user wrote them.
std::string got(const ParamValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return "'" + *s + "'";
  return param_value_text(value);
}

std::optional<std::string> check_value(const ParamSpec& spec, const ParamValue& value) {
  switch (spec.type) {
    case ParamType::integer:
    case ParamType::count: {
      const auto* i = std::get_if<int64_t>(&value);
      if (i == nullptr) return spec.name + ": expected an integer, got " + got(value);
      if (*i < spec.min || *i > spec.max) {
        return spec.name + ": expected an integer in [" + std::to_string(spec.min) + ", " +
               std::to_string(spec.max) + "], got " + std::to_string(*i);
      }
      return std::nullopt;
    }
    case ParamType::boolean:
      if (std::holds_alternative<bool>(value)) return std::nullopt;
      return spec.name + ": expected true or false, got " + got(value);
    case ParamType::choice:
      if (const auto* s = std::get_if<std::string>(&value)) {
        for (const std::string& c : spec.choices) {
          if (c == *s) return std::nullopt;
        }
      }
      return spec.name + ": expected " + param_type_text(spec) + ", got " + got(value);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_params(const ParamTable& table, const LockParams& params) {
  for (const auto& [name, value] : params) {
    const ParamSpec* spec = find_param(table, name);
    if (spec == nullptr) return name + ": not an override of this lock";
    if (auto error = check_value(*spec, value)) return error;
  }
  return std::nullopt;
}

// A name the table does not declare is never given (shared option readers ask for rows that
// only some locks declare).
bool ParamValues::given(std::string_view name) const {
  return params_.find(std::string(name)) != params_.end();
}

const ParamValue& ParamValues::value(std::string_view name, ParamType type) const {
  const ParamSpec* spec = find_param(table_, name);
  SIM_ASSERT(spec != nullptr);
  const bool integer_read = type == ParamType::integer || type == ParamType::count;
  const bool integer_row = spec->type == ParamType::integer || spec->type == ParamType::count;
  SIM_ASSERT(integer_read ? integer_row : spec->type == type);
  const auto found = params_.find(spec->name);
  if (found != params_.end()) return found->second;
  SIM_ASSERT(spec->default_value.has_value());
  return *spec->default_value;
}

int64_t ParamValues::integer(std::string_view name) const {
  return std::get<int64_t>(value(name, ParamType::integer));
}

int64_t ParamValues::integer_or(std::string_view name, int64_t fallback) const {
  return given(name) ? integer(name) : fallback;
}

Duration ParamValues::ms_or(std::string_view name, Duration fallback) const {
  return given(name) ? ms(name) : Duration::from_ms(fallback.ms_floor());
}

bool ParamValues::flag(std::string_view name) const {
  return std::get<bool>(value(name, ParamType::boolean));
}

std::size_t ParamValues::choice(std::string_view name) const {
  const std::string& chosen = std::get<std::string>(value(name, ParamType::choice));
  const ParamSpec* spec = find_param(table_, name);
  for (std::size_t i = 0; i < spec->choices.size(); ++i) {
    if (spec->choices[i] == chosen) return i;
  }
  SIM_ASSERT(false);
  return 0;
}

}  // namespace redlock_sim
