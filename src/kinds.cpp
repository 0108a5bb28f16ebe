#include "clreduce/kinds.hpp"

#include <tuple>

namespace clreduce {

std::string name_of(Path path) {
    switch (path) {
    case Path::work_group:
        return "work-group";
    case Path::sub_group:
        return "sub-group";
    case Path::tree:
        break;
    }
    return "tree";
}

std::string name_of(Factor factor) {
    return factor == Factor::device ? "device" : "textbook";
}

std::string name_of(Finish finish) {
    return finish == Finish::passes ? "passes" : "last-group";
}

bool operator==(const Recipe& a, const Recipe& b) {
    return std::tie(a.type, a.op, a.accumulate, a.user, a.path, a.factor, a.finish,
                    a.work_group_size) == std::tie(b.type, b.op, b.accumulate, b.user, b.path,
                                                   b.factor, b.finish, b.work_group_size);
}

} // namespace clreduce
