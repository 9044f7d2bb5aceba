# Workload B for jq 1.6: keyedToArray (idKey "id", wrapIn "users"), then {} and "" to null and
# member names to snake_case, everywhere below the root.
#   jq -c -f workload_b.jq INPUT > OUTPUT

# camelCase to snake_case: each capital letter starts a new word (displayName -> display_name).
# Unlike Foundation it splits runs of capitals letter by letter (myURL -> my_u_r_l): the payload
# has none. Done on code points, as jq 1.6's gsub is too slow for millions of names.
def snake:
  [explode[] | if . >= 65 and . <= 90 then 95, . + 32 else . end] | implode;

# {} is tested before its members are fixed, as the rules select before they edit. Objects are
# rebuilt with reduce: jq 1.6's with_entries (from_entries) is several times slower.
def fix:
  if type == "object" then
    if length == 0 then null
    else . as $object | reduce keys_unsorted[] as $key ({}; .[$key | snake] = ($object[$key] | fix))
    end
  elif type == "array" then map(fix)
  elif . == "" then null
  else . end;

{users: [to_entries[] | {id: .key} + (.value | fix)]}
