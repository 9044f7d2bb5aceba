# Workload A for jq 1.6: keyedToArray with idKey "id", wrapIn "users" (the id first).
#   jq -c -f workload_a.jq INPUT > OUTPUT
{users: [to_entries[] | {id: .key} + .value]}
