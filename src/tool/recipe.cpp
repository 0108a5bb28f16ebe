#include "tool/recipe.hpp"

#include "tool/failure.hpp"

namespace clreduce {

Recipe recipe_for(const Options& options, const DeviceReport& report,
                  std::optional<Finish> finish) {
    Recipe recipe;
    recipe.type = options.type;
    recipe.op = options.op;
    recipe.accumulate = options.accumulate;
    recipe.user = options.user;
    if (options.path)
        recipe.path = choose_path(report, options.path, options.allow_unreported);
    recipe.factor = options.factor;
    recipe.finish = finish;
    recipe.work_group_size = options.work_group_size;
    return recipe;
}

HostMap host_map_of(const Options& options, const std::string& where) {
    const auto map = host_map(options.user.map);
    if (options.op == Op::custom || !map)
        throw Failure(ExitCode::usage,
                      (options.op == Op::custom ? "--reduce" : "--map '" + options.user.map + "'") +
                          " is checked on one device in one layout, not " + where +
                          ": the host evaluates no op of yours, and of maps only x * x, fabs(x) "
                          "and x != 0");
    return *map;
}

DataType accumulator_of(const Options& options) {
    return accumulator_for(options.type, options.op, options.accumulate);
}

} // namespace clreduce
