"""The CrossWOZ bot's searches look at the records their constraints allow and answer as a scan
of every record would: the count of records meeting every constraint, and the best rated."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from examples.crosswoz import crosswoz_actions as actions

RESTAURANTS = [
    {"名称": "老王面馆", "推荐菜": ["红烧狮子头", "葱油拌面"], "人均消费": 40, "评分": 4.6},
    {"名称": "湖畔小厨", "推荐菜": ["酸菜鱼", "红烧狮子头"], "人均消费": 90, "评分": 4.1},
    {"名称": "湖畔 小厨", "推荐菜": ["汤"], "人均消费": 150, "评分": 4.8},
    {"名称": "无名店", "推荐菜": ["汤"], "人均消费": 60, "评分": None},
]
SIGHTS = [{"名称": "白塔寺", "门票": 0, "游玩时间": "1小时", "评分": 4.5},
          {"名称": "景山公园", "门票": 2, "游玩时间": "1小时", "评分": 4.7},
          {"名称": "故宫", "门票": None, "游玩时间": "3小时", "评分": 4.9}]


@pytest.fixture(autouse=True)
def database(tmp_path: Path) -> Iterator[None]:
    folder = tmp_path / "crosswoz" / "database"
    folder.mkdir(parents=True)
    for name, records in {"restaurant_db.json": RESTAURANTS, "attraction_db.json": SIGHTS}.items():
        (folder / name).write_text(json.dumps([[r["名称"], r] for r in records], ensure_ascii=False), "utf-8")
    actions.use_database(tmp_path)
    yield
    actions.use_database(tmp_path)          # nothing of the made-up database stays cached


def _restaurant(**slots: Any) -> dict[str, Any]:
    return actions.search_restaurant(slots)


def test_a_name_finds_its_records_written_with_or_without_spaces() -> None:
    assert _restaurant(name="湖畔小厨") == {"count": 2, "name_found": "湖畔 小厨"}
    assert _restaurant(name="湖畔小厨", price="100元以下") == {"count": 1, "name_found": "湖畔小厨"}
    assert _restaurant(name="老李烧烤") == {"count": 0, "name_found": "（无）"}


def test_a_dish_is_one_of_a_records_dishes() -> None:
    assert _restaurant(dish="红烧狮子头") == {"count": 2, "name_found": "老王面馆"}
    assert _restaurant(dish=["红烧狮子头", "汤"]) == {"count": 0, "name_found": "（无）"}   # a list is no dish


def test_ranges_take_the_numbers_they_name_and_a_record_without_one_meets_none() -> None:
    assert _restaurant(price="50-100元") == {"count": 2, "name_found": "湖畔小厨"}
    assert _restaurant(price="100元以上") == {"count": 1, "name_found": "湖畔 小厨"}
    assert _restaurant(rating="4.5分以上") == {"count": 2, "name_found": "湖畔 小厨"}
    assert actions.search_attraction({"ticket": "免费"}) == {"count": 1, "name_found": "白塔寺"}
    assert actions.search_attraction({"ticket": "门票"}) == {"count": 2, "name_found": "景山公园"}


def test_constraints_together_and_nothing_asked() -> None:
    assert _restaurant(dish="汤", price="100元以下") == {"count": 1, "name_found": "无名店"}
    assert _restaurant() == {"count": 4, "name_found": "湖畔 小厨"}
    assert actions.search_attraction({"duration": "1小时", "rating": "4.6分以上"}) == {"count": 1,
                                                                                    "name_found": "景山公园"}


def test_not_free_takes_the_records_that_charge() -> None:
    assert actions.search_attraction({"ticket": "不免费"}) == {"count": 1, "name_found": "景山公园"}
