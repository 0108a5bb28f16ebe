#include "tool/recipe.hpp"

#include "clreduce/exact.hpp"
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

DataType accumulator_of(const Options& options) {
    return accumulator_for(options.type, options.op, options.accumulate);
}

void refuse_inexact_op(const Options& options) {
    if (options.op != Op::sum || !exact_sums(options.type))
        throw Failure(ExitCode::usage,
                      "--exact sums float, double, float16 or bfloat16 values (--op sum), not " +
                          name_of(options.op) + " of " + name_of(options.type));
}

} // namespace clreduce
